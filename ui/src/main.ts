import { mount } from "svelte";
import "./app.css";
import App from "./App.svelte";

// Where the start's time goes, for benches/window/first_content.mjs (issue 34): the start
// script running, the app mounted, and the frame after it.
performance.mark("plandeck:module");
const target = document.getElementById("app");
if (!target) throw new Error("no #app element");
const app = mount(App, { target });
performance.mark("plandeck:mounted");
requestAnimationFrame(() => performance.mark("plandeck:frame"));
export default app;
