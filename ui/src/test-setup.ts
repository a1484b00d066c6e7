import "@testing-library/jest-dom/vitest";
import { afterEach } from "vitest";
import { cleanup } from "@testing-library/svelte";
import { clearMocks } from "@tauri-apps/api/mocks";
import { forgetAgents } from "./lib/agents.svelte";
import { forgetMachines } from "./lib/machines.svelte";

afterEach(() => {
  cleanup();
  // The machines' listener goes while its mocks are still there.
  forgetMachines();
  clearMocks();
  // The agents came from this case's mocks: the next case asks its own.
  forgetAgents();
});
