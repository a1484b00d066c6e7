import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { coalesce } from "./coalesce";

describe("coalesce", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("runs once more after a burst of calls made while it ran, not once per call", async () => {
    const ends: Array<() => void> = [];
    const task = vi.fn(() => new Promise<void>((r) => ends.push(r)));
    const run = coalesce(task, 500);
    run();
    expect(task).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i++) run();
    expect(task).toHaveBeenCalledTimes(1);
    ends[0]();
    await vi.advanceTimersByTimeAsync(499);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2);
    ends[1]();
    await vi.advanceTimersByTimeAsync(1000);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it("runs at once when idle, and again after a failure", async () => {
    const task = vi.fn().mockRejectedValueOnce(new Error("x")).mockResolvedValue(undefined);
    const run = coalesce(task, 500);
    run();
    await vi.advanceTimersByTimeAsync(0);
    run();
    expect(task).toHaveBeenCalledTimes(2);
  });
});
