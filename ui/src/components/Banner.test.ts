import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/svelte";
import BannerHost from "./BannerHost.test.svelte";
import { BANNER_MS } from "./Banner.svelte";

describe("Banner", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("goes by itself after a while", async () => {
    render(BannerHost);
    expect(screen.getByTestId("b")).toHaveTextContent("Approved.");
    await vi.advanceTimersByTimeAsync(BANNER_MS - 100);
    expect(screen.queryByTestId("b")).not.toBeNull();
    await vi.advanceTimersByTimeAsync(200);
    expect(screen.queryByTestId("b")).toBeNull();
  });

  it("stays while hovered or focused, keeping its Undo, and goes once left", async () => {
    const undo = vi.fn();
    render(BannerHost, { onUndo: undo });
    const b = screen.getByTestId("b");
    await fireEvent.mouseEnter(b);
    await vi.advanceTimersByTimeAsync(BANNER_MS * 3);
    expect(screen.getByTestId("banner-undo")).toBeInTheDocument();
    await fireEvent.mouseLeave(b);
    // Focus on its Undo holds it too (reached with Tab).
    screen.getByTestId("banner-undo").focus();
    await vi.advanceTimersByTimeAsync(BANNER_MS * 3);
    await fireEvent.click(screen.getByTestId("banner-undo"));
    expect(undo).toHaveBeenCalledOnce();
    screen.getByTestId("elsewhere").focus();
    await vi.advanceTimersByTimeAsync(BANNER_MS + 10);
    expect(screen.queryByTestId("b")).toBeNull();
  });

  it("is dismissed with its close button", async () => {
    render(BannerHost);
    await fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByTestId("b")).toBeNull();
  });
});
