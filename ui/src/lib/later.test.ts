import { describe, expect, it } from "vitest";
import { afterPaint, once } from "./later";

describe("later", () => {
  it("loads once: every call gets the first call's promise", async () => {
    let calls = 0;
    const load = once(async () => ++calls);
    const [a, b] = [load(), load()];
    expect(a).toBe(b);
    expect(await a).toBe(1);
    expect(await load()).toBe(1);
    expect(calls).toBe(1);
  });

  it("a failed load is tried again on the next call", async () => {
    let calls = 0;
    const load = once(async () => {
      calls++;
      if (calls === 1) throw new Error("chunk did not load");
      return "view";
    });
    await expect(load()).rejects.toThrow("chunk did not load");
    expect(await load()).toBe("view");
    expect(calls).toBe(2);
  });

  it("afterPaint resolves after the current task, where nothing paints too", async () => {
    const order: string[] = [];
    const done = afterPaint().then(() => order.push("after paint"));
    order.push("this task");
    await done;
    expect(order).toEqual(["this task", "after paint"]);
  });
});
