import { describe, expect, it } from "vitest";
import { size, sizeOf } from "./size";

describe("size", () => {
  it("picks the unit that suits the figure", () => {
    expect(size(0)).toBe("0 B");
    expect(size(812)).toBe("812 B");
    expect(size(4300)).toBe("4.2 KB");
    expect(size(37 << 20)).toBe("37 MB");
    expect(size(1.3 * 2 ** 30)).toBe("1.3 GB");
  });
});

describe("sizeOf", () => {
  it("says a small total in KB, not 0.0 of 0.0 MB", () => {
    expect(sizeOf(0, 35_000)).toBe("0 of 34 KB");
    expect(sizeOf(35_000, 35_000)).toBe("34 of 34 KB");
  });
  it("gives both figures in the total's unit", () => {
    expect(sizeOf(300 << 20, 2.4 * 2 ** 30)).toBe("0.3 of 2.4 GB");
    expect(sizeOf(5 << 20, 120 << 20)).toBe("5 of 120 MB");
  });
  it("never says more done than the total", () => {
    expect(sizeOf(2000, 1000)).toBe("1000 of 1000 B");
  });
});
