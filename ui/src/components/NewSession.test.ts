import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import NewSession from "./NewSession.svelte";
import SessionsView from "../views/SessionsView.svelte";
import type { Started } from "../lib/bindings";
import { agentList, withFourthAgent } from "../test-fixtures";
import { where } from "../lib/paths.svelte";

const started = (over: Partial<Started> = {}): Started => ({
  agent: "claude",
  tmuxSession: "api-feat-claude",
  pane: "%3",
  pid: 4242,
  cwd: "/h/work/api.worktrees/feat",
  worktree: "/h/work/api.worktrees/feat",
  branch: "feat",
  sessionId: "3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f",
  foundBy: "the session id it was given",
  plan: true,
  attach: "tmux attach -t api-feat-claude",
  hook: null,
  ...over,
});

describe("NewSession", () => {
  it("offers the ACP agents found, and asks the server to host the one picked", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      calls.push([cmd, args]);
      if (cmd === "acp_agents")
        return [
          { name: "claude-acp", displayName: "Claude Code (ACP)", found: true, package: "@zed-industries/claude-agent-acp" },
          { name: "opencode", displayName: "OpenCode (ACP)", found: false, package: "opencode-ai" },
        ];
      if (cmd === "start_acp_session")
        return { id: "acps-1", agent: args.agent, cwd: "/h/work/api", worktree: null, branch: null, plan: args.plan };
      return null;
    });
    render(NewSession, { onClose: () => {} });
    const select = (await screen.findByLabelText("Agent")) as HTMLSelectElement;
    await waitFor(() => expect(select.querySelector('option[value="acp:claude-acp"]')).not.toBeNull());
    expect(select.querySelector('option[value="acp:opencode"]')).toHaveProperty("disabled", true);
    await fireEvent.change(select, { target: { value: "acp:claude-acp" } });
    await fireEvent.input(screen.getByLabelText("Repository"), { target: { value: "~/work/api" } });
    await fireEvent.input(screen.getByLabelText("Prompt"), { target: { value: "Plan pagination." } });
    await fireEvent.click(screen.getByTestId("new-session-start"));
    await waitFor(() => expect(screen.getByTestId("new-session-acp-started")).toHaveTextContent("acps-1"));
    // Not every ACP agent has a plan mode (codex-acp, OpenCode): plan mode is asked for, not promised.
    expect(screen.getByTestId("new-session-acp-started")).toHaveTextContent("asking for plan mode where the agent offers one");
    expect(screen.getByTestId("new-session-acp-started")).not.toHaveTextContent(/start claude-acp in plan mode/);
    const asked = calls.find(([c]) => c === "start_acp_session")![1];
    expect(asked).toMatchObject({ agent: "claude-acp", repo: "~/work/api", plan: true, prompt: "Plan pagination." });
    expect(calls.some(([c]) => c === "start_session")).toBe(false);
  });

  it("starts the agent picked from core's list with the repository picked, the worktree, plan mode and the prompt, on Enter", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return withFourthAgent({ sessions: true });
      calls.push([cmd, args]);
      if (cmd === "pick_repo") return "/h/work/api";
      if (cmd === "get_overview") return { repos: ["/h/work/shop"] };
      if (cmd === "list_worktrees")
        return [
          { repo: "/h/work/web", machine: null },
          { repo: "/h/work/web", machine: null },
          { repo: "/lab/work/x", machine: "lab" },
        ];
      if (cmd === "start_session") return started({ agent: args.request.agent });
    });
    const onStarted = vi.fn();
    where.home = "/h";
    render(NewSession, { onClose: () => {}, onStarted });
    // The agents are core's: a fourth one shows with no change here.
    await screen.findByRole("option", { name: "Aider" });
    // The repositories Plandeck lists here (its worktrees' and Settings') are offered from `~/`
    // (another machine's are not); core expands `~` (issue 34).
    await waitFor(() =>
      expect([...document.querySelectorAll("#new-session-repos option")].map((o) => (o as HTMLOptionElement).value)).toEqual(["~/work/shop", "~/work/web"]),
    );
    await fireEvent.change(screen.getByLabelText("Agent"), { target: { value: "gemini" } });
    await fireEvent.click(screen.getByRole("button", { name: "Choose…" }));
    await waitFor(() => expect((screen.getByLabelText("Repository") as HTMLInputElement).value).toBe("~/work/api"));
    await fireEvent.input(screen.getByLabelText("Worktree name"), { target: { value: "feat" } });
    await fireEvent.input(screen.getByLabelText("Base branch"), { target: { value: "main" } });
    await fireEvent.input(screen.getByLabelText("Prompt"), { target: { value: "plan pagination" } });
    expect((screen.getByLabelText("Plan mode") as HTMLInputElement).checked).toBe(true);
    await fireEvent.keyDown(screen.getByLabelText("Prompt"), { key: "Enter" });
    await screen.findByTestId("new-session-started");
    expect(calls.find(([c]) => c === "start_session")![1]).toEqual({
      request: { agent: "gemini", repo: "~/work/api", worktree: "feat", base: "main", plan: true, prompt: "plan pagination" },
    });
    where.home = "";
    expect(screen.getByTestId("new-session-started").textContent).toContain("api-feat-claude");
    expect(onStarted).toHaveBeenCalledOnce();
  });

  it("shows core's refusal as it says it, and Esc cancels", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "start_session")
        throw { kind: "conflict", message: "a branch named \"feat\" already exists in /h/work/api: pick another worktree name" };
    });
    const onClose = vi.fn();
    render(NewSession, { onClose });
    await screen.findByRole("option", { name: "Claude Code" });
    // No repository: said here, nothing asked of core.
    await fireEvent.click(screen.getByRole("button", { name: "Start" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Choose the repository");
    await fireEvent.input(screen.getByLabelText("Repository"), { target: { value: "/h/work/api" } });
    await fireEvent.input(screen.getByLabelText("Worktree name"), { target: { value: "feat" } });
    await fireEvent.click(screen.getByRole("button", { name: "Start" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("already exists"));
    await fireEvent.keyDown(screen.getByLabelText("Worktree name"), { key: "Escape" });
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("offers the agent's plan hook first when it is not installed, with the change it makes", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      calls.push([cmd, args]);
      if (cmd === "start_session")
        return started({
          hook: { agent: "claude", settingsPath: "/h/.claude/settings.json", installed: false, diff: "+  \"hooks\": { \"PermissionRequest\": [] }", token: "tok-1" },
        });
      if (cmd === "set_hook") return { settingsPath: "/h/.claude/settings.json", backupPath: null, changed: true, message: "Installed." };
    });
    render(NewSession, { onClose: () => {} });
    await screen.findByRole("option", { name: "Claude Code" });
    await fireEvent.input(screen.getByLabelText("Repository"), { target: { value: "/h/work/api" } });
    await fireEvent.click(screen.getByRole("button", { name: "Start" }));
    const hook = await screen.findByTestId("new-session-hook");
    expect(hook.textContent).toContain("PermissionRequest");
    await fireEvent.click(screen.getByRole("button", { name: "Install hook" }));
    await screen.findByText(/Hook installed/);
    expect(calls.find(([c]) => c === "set_hook")![1]).toEqual({ agent: "claude", installed: true, token: "tok-1" });
  });

  it("opens from the Sessions view's button and its N shortcut", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "list_sessions") return [];
      if (cmd === "session_index_progress") return { read: 0, total: 0, ready: true };
    });
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await fireEvent.keyDown(window, { key: "n" });
    expect(await screen.findByTestId("new-session")).toBeTruthy();
    await fireEvent.keyDown(screen.getByTestId("new-session"), { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("new-session")).toBeNull());
    await fireEvent.click(screen.getByTestId("new-session-button"));
    expect(await screen.findByTestId("new-session")).toBeTruthy();
  });
});
