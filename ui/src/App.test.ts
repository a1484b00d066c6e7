import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import App from "./App.svelte";
// The views App loads when first shown (lib/later.ts): compiled here once, so a case waits for the
// view, not for the test server's first transform of it.
import "./views/SessionsView.svelte";
import "./views/WorktreesView.svelte";
import "./views/SettingsView.svelte";
import type { Overview } from "./lib/bindings";
import { agentList } from "./test-fixtures";

function overview(demo = false, claudeFound = true, repos: string[] = []): Overview {
  return {
    demo,
    repos,
    dataDir: "/home/u/.local/share/plandeck",
    home: "/home/u",
    settingsFile: "/home/u/.config/plandeck/settings.json",
    sources: [
      {
        agent: "claude",
        name: "Claude Code",
        root: "/home/u/.claude",
        rootExists: claudeFound,
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
    // Written from `~/` as every path the window shows (issue 34).
    expect(await screen.findByText("~/.claude/plans")).toBeInTheDocument();
    expect(screen.getByText("not found")).toBeInTheDocument();
  });

  it("the first frame has the plans view only: the waiting queue and the machines bar come after its paint", async () => {
    // Issue 34, the first impression: what the first frame does not draw is not parsed, mounted or
    // asked for before it (their chunks load after the first paint, lib/later.ts).
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "get_overview") return overview();
      if (cmd === "list_plans") return { plans: [], problems: [] };
      return [];
    });
    render(App);
    // Mounted: the plans view has asked for its list, the queue has not asked for its requests.
    await waitFor(() => expect(calls).toContain("list_plans"));
    expect(calls).not.toContain("list_pending");
    // Then it is mounted.
    await waitFor(() => expect(calls).toContain("list_pending"));
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
    // Nothing to filter: no filters (issue 34).
    expect(screen.queryByLabelText("Agent")).toBeNull();
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

  it("leaves the demo from its banner, back to the person's own folders", async () => {
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "get_overview") return overview(true);
      if (cmd === "leave_demo") return overview(false);
      if (cmd === "list_plans") return { plans: [], problems: [] };
      return [];
    });
    render(App);
    const banner = await screen.findByTestId("demo-banner");
    expect(banner).toHaveTextContent("Demo workspace");
    await fireEvent.click(screen.getByTestId("leave-demo"));
    await waitFor(() => expect(calls).toContain("leave_demo"));
    await waitFor(() => expect(screen.queryByTestId("demo-banner")).toBeNull());
    expect(screen.queryByText("demo")).toBeNull();
  });

  it("refreshes “Where Plandeck looks” after a hook is installed or a repository added, keeping Settings and its notice", async () => {
    let claudeFound = false;
    let repos: string[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "get_overview") return overview(false, claudeFound, repos);
      if (cmd === "list_plans") return { plans: [], problems: [] };
      if (cmd === "list_agents") return agentList;
      if (cmd === "hook_status" || cmd === "stop_hook_status")
        return { agent: args?.agent ?? "claude", settingsPath: "/home/u/.claude/settings.json", installed: false, diff: "+ hook", token: "t" };
      if (cmd === "set_hook") {
        // Installing the hook created ~/.claude/settings.json, so ~/.claude exists now.
        claudeFound = true;
        return { settingsPath: "/home/u/.claude/settings.json", backupPath: null, changed: true, message: "installed the hook in /home/u/.claude/settings.json" };
      }
      if (cmd === "add_repo") {
        repos = ["/home/u/src/app"];
        return "/home/u/src/app";
      }
      return [];
    });
    render(App);
    await fireEvent.click(await screen.findByTestId("open-settings"));
    const claude = await screen.findByTestId("hook-claude");
    await waitFor(() => expect(claude).toHaveTextContent("not installed"));
    const source = await screen.findByTestId("source-claude");
    expect(source).toHaveTextContent("not found");
    await fireEvent.click(within(claude).getByTestId("show-hook"));
    await fireEvent.click(within(claude).getByTestId("apply-hook"));
    await waitFor(() => expect(screen.getByTestId("source-claude")).not.toHaveTextContent("not found"));
    expect(screen.getByRole("status")).toHaveTextContent("installed the hook");
    await fireEvent.click(screen.getByTestId("add-repo"));
    expect(await screen.findByTestId("source-repo")).toHaveTextContent("~/src/app");
    expect(screen.getByRole("status")).toHaveTextContent("Added /home/u/src/app.");
  });
  it("follows folders that appear while the window is open (a first run)", async () => {
    let claudeFound = false;
    mockIPC(
      (cmd) => {
        if (cmd === "get_overview") return overview(false, claudeFound);
        if (cmd === "list_plans") return { plans: [], problems: [] };
        return [];
      },
      { shouldMockEvents: true },
    );
    render(App);
    await screen.findByText("No plans yet");
    expect(await screen.findAllByText("not found")).toHaveLength(2);
    // Claude Code made its folders: the watcher reports its first session.
    claudeFound = true;
    await emit("sessions:changed", { sessionIds: ["s1"], startedWaiting: [] });
    await waitFor(() => expect(screen.getAllByText("not found")).toHaveLength(1), { timeout: 3000 });
  });
});
