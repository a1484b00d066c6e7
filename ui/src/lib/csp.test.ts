import { describe, expect, it } from "vitest";
import { styleNonce } from "./csp";

function page(content: string | null): Document {
  const doc = document.implementation.createHTMLDocument("t");
  if (content !== null) {
    const meta = doc.createElement("meta");
    meta.name = "pd-style-nonce";
    meta.content = content;
    doc.head.append(meta);
  }
  return doc;
}

describe("styleNonce", () => {
  it("reads the nonce Tauri put in the page", () => {
    expect(styleNonce(page("1234567890"))).toBe("1234567890");
  });
  it("is empty when the page was not served by Tauri (token left as is, or no meta)", () => {
    expect(styleNonce(page("__TAURI_STYLE_NONCE__"))).toBe("");
    expect(styleNonce(page(null))).toBe("");
  });
});
