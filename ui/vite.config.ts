import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// Tauri serves ui/dist; the dev server is only for `tauri dev`.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    target: "safari16",
    outDir: "dist",
    emptyOutDir: true,
    // No inline scripts or styles: the CSP allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // One start script (issue 34): everything the entry imports statically (the app, Svelte's
        // runtime, the IPC client) in the entry's own chunk instead of three files fetched and
        // linked before the first frame; the views, the editor, xterm and highlight.js stay
        // chunks of their own, loaded after the first paint.
        codeSplitting: { groups: [{ name: "index", tags: ["$initial"] }] },
      },
    },
  },
  resolve: process.env.VITEST ? { conditions: ["browser"] } : undefined,
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.ts"],
    setupFiles: ["src/test-setup.ts"],
  },
});
