// A window over a long list: only the rows near the visible part of the scroller are rendered,
// with spacers above and below standing for the rest. Rows may differ in height: each rendered
// row is measured (the `measure` action) and unmeasured rows count as `estimate` pixels.
//
//   const win = new VirtualWindow(32);
//   $effect(() => win.setCount(items.length));
//   <div use:win.attach> <div style:height={`${win.padTop}px`}></div>
//     {#each items.slice(win.start, win.end) as item, k (key)} <div use:win.measure={win.start + k}>…
//   <div style:height={`${win.padBottom}px`}></div></div>
//
// The scroller is the nearest scrolling ancestor of the attached element (or the element itself,
// or the document). Where nothing has a size (tests under jsdom), the view counts as `fallback`
// pixels high.

/** The element that scrolls `el`: itself or its nearest ancestor with overflow auto/scroll. */
export function scrollerOf(el: HTMLElement): HTMLElement {
  for (let e: HTMLElement | null = el; e; e = e.parentElement) {
    const style = getComputedStyle(e);
    const o = style.overflowY || style.overflow;
    if (o === "auto" || o === "scroll" || o === "overlay") return e;
  }
  return (document.scrollingElement as HTMLElement | null) ?? document.documentElement;
}

/** How far below the top of the page `el` is laid out (scrolling aside). */
function pageTop(el: HTMLElement): number {
  let top = 0;
  for (let e: HTMLElement | null = el; e; e = e.offsetParent as HTMLElement | null) top += e.offsetTop;
  return top;
}

export class VirtualWindow {
  /** First rendered row, and one past the last. */
  start = $state(0);
  end = $state(0);
  /** Heights of the spacers standing for the rows before `start` and after `end`. */
  padTop = $state(0);
  padBottom = $state(0);

  #estimate: number;
  #overscan: number;
  #fallback: number;
  #heights: number[] = [];
  #offsets: number[] = [0];
  #dirty = true;
  #count = 0;
  #anchor: HTMLElement | null = null;
  #scroller: HTMLElement | null = null;
  #frame = 0;

  constructor(estimate: number, { overscan = 6, fallback = 800 }: { overscan?: number; fallback?: number } = {}) {
    this.#estimate = estimate;
    this.#overscan = overscan;
    this.#fallback = fallback;
  }

  get count() {
    return this.#count;
  }

  /** Sets how many rows there are (keeps heights measured so far) and recomputes the window. */
  setCount(n: number) {
    if (n !== this.#count) {
      this.#heights.length = n;
      for (let i = this.#count; i < n; i++) this.#heights[i] = this.#estimate;
      this.#count = n;
      this.#dirty = true;
    }
    this.update();
  }

  /** Forgets measured heights (the rows changed shape, e.g. another column count). */
  reset() {
    this.#heights.fill(this.#estimate);
    this.#dirty = true;
    this.update();
  }

  #offset(i: number): number {
    if (this.#dirty) {
      const o = new Array<number>(this.#count + 1);
      o[0] = 0;
      for (let k = 0; k < this.#count; k++) o[k + 1] = o[k] + this.#heights[k];
      this.#offsets = o;
      this.#dirty = false;
    }
    return this.#offsets[Math.min(i, this.#count)];
  }

  /** The first row whose bottom is below `y`. */
  #indexAt(y: number): number {
    let lo = 0;
    let hi = this.#count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#offset(mid + 1) <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Where the list starts inside the scroller's content, and how high the scroller's view is. */
  #view(): { top: number; height: number; scrollTop: number } {
    const s = this.#scroller;
    const a = this.#anchor;
    if (!s || !a) return { top: 0, height: this.#fallback, scrollTop: 0 };
    const scrollTop = s.scrollTop || 0;
    // Layout offsets, not client rects: they do not move as anything scrolls.
    const top = a === s ? 0 : pageTop(a) - pageTop(s);
    const height = s.clientHeight || this.#fallback;
    return { top, height, scrollTop };
  }

  /** Recomputes which rows to render from the scroll position. */
  update() {
    const { top, height, scrollTop } = this.#view();
    const from = Math.max(0, scrollTop - top);
    const to = Math.max(0, scrollTop - top + height);
    const start = Math.max(0, this.#indexAt(from) - this.#overscan);
    const end = Math.min(this.#count, this.#indexAt(to) + 1 + this.#overscan);
    if (start !== this.start) this.start = start;
    if (end !== this.end) this.end = end;
    const padTop = this.#offset(start);
    const padBottom = this.#offset(this.#count) - this.#offset(end);
    if (padTop !== this.padTop) this.padTop = padTop;
    if (padBottom !== this.padBottom) this.padBottom = padBottom;
  }

  #schedule = () => {
    if (this.#frame) return;
    if (typeof requestAnimationFrame === "undefined") return this.update();
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.update();
    });
  };

  /** Action for the element holding the rows: follows its scroller's scrolling and size. */
  attach = (node: HTMLElement, scroller?: HTMLElement | "self" | null) => {
    this.#anchor = node;
    this.#scroller = scroller === "self" ? node : (scroller ?? scrollerOf(node));
    const target: HTMLElement | Window =
      this.#scroller === document.scrollingElement || this.#scroller === document.documentElement ? window : this.#scroller;
    const onScroll = () => this.update();
    target.addEventListener("scroll", onScroll, { passive: true });
    const ro = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(this.#schedule);
    ro?.observe(this.#scroller);
    this.update();
    return {
      destroy: () => {
        target.removeEventListener("scroll", onScroll);
        ro?.disconnect();
        if (this.#frame) cancelAnimationFrame(this.#frame);
        this.#frame = 0;
        if (this.#anchor === node) this.#anchor = this.#scroller = null;
      },
    };
  };

  /** Action for each rendered row, given its index: records its height. */
  measure = (node: HTMLElement, index: number) => {
    const record = (i: number) => {
      const h = node.offsetHeight;
      if (h > 0 && i < this.#count && Math.abs(this.#heights[i] - h) > 0.5) {
        this.#heights[i] = h;
        this.#dirty = true;
        this.#schedule();
      }
    };
    record(index);
    return { update: record };
  };

  /** Scrolls the least needed so row `i` is in view (keyboard selection). */
  scrollToIndex(i: number) {
    if (i < 0 || i >= this.#count) return;
    const s = this.#scroller;
    if (s) {
      const { top, height, scrollTop } = this.#view();
      const rowTop = top + this.#offset(i);
      const rowBottom = top + this.#offset(i + 1);
      let next = scrollTop;
      if (rowTop < scrollTop) next = rowTop;
      else if (rowBottom > scrollTop + height) next = rowBottom - height;
      if (next !== scrollTop) s.scrollTop = next;
    }
    this.update();
    // Wherever the scroller could not go (no layout), the row is rendered all the same.
    if (i < this.start || i >= this.end) {
      this.start = Math.max(0, i - this.#overscan);
      this.end = Math.min(this.#count, i + 1 + this.#overscan);
      this.padTop = this.#offset(this.start);
      this.padBottom = this.#offset(this.#count) - this.#offset(this.end);
    }
  }
}
