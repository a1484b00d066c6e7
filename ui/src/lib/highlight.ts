// Syntax highlighting of code blocks in rendered plans. The HTML arrives sanitized from Rust with
// `<pre><code class="language-x">`; highlight.js only adds spans with classes. highlight.js is
// loaded the first time a plan with a code block is shown, not with the app (memory: docs/architecture.md §6).

let loading: Promise<typeof import("./hljs").default> | undefined;

/** Highlights every code block with a known language inside `root`. */
export async function highlightIn(root: HTMLElement) {
  const blocks = [...root.querySelectorAll<HTMLElement>("pre code[class*='language-']")].filter((el) => !el.dataset.highlighted);
  if (!blocks.length) return;
  loading ??= import("./hljs").then((m) => m.default);
  const hljs = await loading;
  for (const el of blocks) {
    const lang = [...el.classList].find((c) => c.startsWith("language-"))?.slice(9);
    // The block may have been replaced while highlight.js loaded.
    if (lang && el.isConnected && hljs.getLanguage(lang) && !el.dataset.highlighted) {
      hljs.highlightElement(el);
    }
  }
}

/** A Svelte action: highlights code blocks after each render of the node's content. */
export function highlighted(node: HTMLElement, _html: string) {
  void highlightIn(node);
  return { update: () => void highlightIn(node) };
}
