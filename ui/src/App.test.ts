import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import App from "./App.svelte";
import type { Overview } from "./lib/bindings";

function overview(demo = false): Overview {
  return {
    demo,
    dataDir: "/home/u/.local/share/plandeck",
    home: "/home/u",
    settingsFile: "/home/u/.config/plandeck/settings.json",
    sources: [
      {
        agent: "claude",
        name: "Claude Code",
        root: "/home/u/.claude",
        rootExists: true,
        folders: [{ label: "plans", path: "/home/u/.claude/plans", exists: true, files: 0 }],
      },
      { agent: "gemini", name: "Gemini CLI", root: "/home/u/.gemini", rootExists: false, folders: [] },
    ],
  };
}

describe("App", () => {
  it("shows which folders were looked at when nothing was found", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_overview") return overview();
      if (cmd === "list_plans") return { plans: [], problems: [] };
      return [];
    });
    render(App);
    expect(await screen.findByText("No plans yet")).toBeInTheDocument();
    expect(await screen.findByText("/home/u/.claude/plans")).toBeInTheDocument();
    expect(screen.getByText("not found")).toBeInTheDocument();
  });

  it("loads the demo from the empty state", async () => {
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "get_overview") return overview();
      if (cmd === "load_demo") return overview(true);
      if (cmd === "list_plans") return { plans: [], problems: [] };
      return [];
    });
    render(App);
    await fireEvent.click(await screen.findByTestId("load-demo"));
    await waitFor(() => expect(calls).toContain("load_demo"));
    expect(await screen.findByText("demo")).toBeInTheDocument();
  });

  it("switches views with the sidebar and with the number keys", async () => {
    mockIPC((cmd) => (cmd === "get_overview" ? overview() : cmd === "list_plans" ? { plans: [], problems: [] } : []));
    render(App);
    await screen.findByText("No plans yet");
    await fireEvent.keyDown(window, { key: "2" });
    expect(await screen.findByText("No sessions yet")).toBeInTheDocument();
    await fireEvent.click(screen.getByRole("button", { name: /Worktrees/ }));
    expect(await screen.findByText("No worktrees yet")).toBeInTheDocument();
  });

  it("the empty state says what to do and opens Settings", async () => {
    mockIPC((cmd) => (cmd === "get_overview" ? overview() : cmd === "list_plans" ? { plans: [], problems: [] } : []));
    render(App);
    expect(await screen.findByTestId("empty-todo")).toHaveTextContent(/plan-approval hook in Settings/);
    expect(screen.queryByText("/home/u/.config/plandeck/settings.json")).toBeNull();
    await fireEvent.click(screen.getByTestId("open-settings"));
    expect(await screen.findByRole("heading", { name: "Settings" })).toBeInTheDocument();
  });

  it("shows an IPC error's message", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_overview") throw { kind: "badInput", message: "settings.json is not valid JSON" };
      if (cmd === "list_plans") return { plans: [], problems: [] };
      return [];
    });
    render(App);
    expect(await screen.findByRole("alert")).toHaveTextContent("settings.json is not valid JSON");
  });
});
