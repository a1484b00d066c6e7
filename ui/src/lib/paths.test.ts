import { describe, expect, it } from "vitest";
import { slugOf, splitPath, tilde } from "./paths.svelte";

describe("paths", () => {
  it("writes the home folder as ~, only as a whole leading folder", () => {
    expect(tilde("/home/ann/src/shop", "/home/ann")).toBe("~/src/shop");
    expect(tilde("/home/ann", "/home/ann/")).toBe("~");
    expect(tilde("/home/ann2/src", "/home/ann")).toBe("/home/ann2/src");
    expect(tilde("/srv/x", "")).toBe("/srv/x");
  });

  it("keeps the last segments whole: the cut goes in the middle", () => {
    expect(splitPath("~/src/shop/.claude/plans/a.md", 2)).toEqual({ head: "~/src/shop/.claude/", tail: "plans/a.md" });
    expect(splitPath("a.md", 2)).toEqual({ head: "", tail: "a.md" });
  });

  it("a plan's slug is its file name without .md", () => {
    expect(slugOf("/h/.claude/plans/shop-pagination-brisk-otter.md")).toBe("shop-pagination-brisk-otter");
  });
});

describe("a path not known yet", () => {
  it("is written as nothing, never an error", () => {
    expect(tilde(undefined, "/home/ann")).toBe("");
    expect(tilde(null, "/home/ann")).toBe("");
  });
});
