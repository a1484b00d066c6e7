// What the first frame does not need comes after it (issue 34, the first impression): views not
// on screen at start are chunks of their own, loaded when first shown (or once the page has
// painted), and the plan pane is drawn after the plan rows' first paint.

/** Resolves after the page's next paint: a frame, then a task after it (the paint follows the
 * frame's callbacks). Where nothing paints (jsdom in the unit tests), after a task. */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame === "undefined") setTimeout(resolve, 0);
    else requestAnimationFrame(() => setTimeout(resolve, 0));
  });
}

/** `load`, called once: every call after the first gets the first call's promise (a chunk is
 * fetched and evaluated once; a failed load is tried again on the next call). */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | null = null;
  return () => {
    kept ??= load().catch((e) => {
      kept = null;
      throw e;
    });
    return kept;
  };
}
