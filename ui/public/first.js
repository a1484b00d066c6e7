// The first view's data (src-tauri/first.rs serves this path from what the window computed at
// start). This stand-in, for the Vite dev server, has none: the UI asks by IPC.
window.__PLANDECK_FIRST__ = {};
