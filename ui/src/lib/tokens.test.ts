import { describe, expect, it } from "vitest";
import { dollars, tokens, usageLine, usageTitle } from "./tokens";

describe("tokens", () => {
  it("shortens counts", () => {
    expect(tokens(0)).toBe("0");
    expect(tokens(950)).toBe("950");
    expect(tokens(12_345)).toBe("12.3k");
    expect(tokens(4_000)).toBe("4k");
    expect(tokens(999_999)).toBe("1M");
    expect(tokens(1_250_000)).toBe("1.3M");
    expect(tokens(-1)).toBe("?");
  });

  it("says dollars", () => {
    expect(dollars(0.00072)).toBe("<$0.01");
    expect(dollars(0.42)).toBe("$0.42");
    expect(dollars(12.4)).toBe("$12");
    expect(dollars(0)).toBe("$0.00");
  });

  it("makes the card's line, at least when partial", () => {
    expect(usageLine({ inputTokens: 12_300, outputTokens: 4_100, costUsd: null, partial: false })).toBe("12.3k in · 4.1k out");
    expect(usageLine({ inputTokens: 30, outputTokens: 30, costUsd: 0.42, partial: false })).toBe("30 in · 30 out · $0.42");
    expect(usageLine({ inputTokens: 30, outputTokens: 30, costUsd: 0.42, partial: true })).toBe("≥30 in · ≥30 out");
    expect(usageTitle({ inputTokens: 12_300, outputTokens: 41, costUsd: null, partial: true })).toMatch(/^12,300 input tokens .*41 output tokens: counted from part/);
  });
});
