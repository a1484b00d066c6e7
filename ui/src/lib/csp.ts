// The style nonce of this page load. The CSP allows styles from the app's own files only
// (`style-src 'self'`), plus one nonce: Tauri replaces `__TAURI_STYLE_NONCE__` in index.html with a
// fresh random number on every load and adds `'nonce-<it>'` to style-src. CodeMirror injects its
// theme as a `<style>` element (style-mod); given the nonce (`EditorView.cspNonce`) that element
// carries it and applies. Without it the editor renders unstyled (the text out of view).

const TOKEN_PREFIX = "__TAURI_";

/** The nonce, or "" when the page was not served by Tauri (tests, the Vite dev server). */
export function styleNonce(doc: Document = document): string {
  const value = doc.querySelector<HTMLMetaElement>('meta[name="pd-style-nonce"]')?.content ?? "";
  return value.startsWith(TOKEN_PREFIX) ? "" : value;
}
