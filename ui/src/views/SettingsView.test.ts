import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import SettingsView from "./SettingsView.svelte";
import { agentList, withFourthAgent } from "../test-fixtures";

/** Settings → Phone's answer when the page is off and no phone is paired. */
const phoneOff = { on: false, running: false, listen: null, cert: null, key: null, name: null, url: null, by: null, error: null, allInterfaces: false, waitMinutes: 15, devices: [] };

describe("SettingsView", () => {
  it("shows the change to the agent's settings before installing its hook, and passes the token of what it showed", async () => {
    const calls: [string, any][] = [];
    let installed = false;
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      calls.push([cmd, args]);
      if (cmd === "hook_status")
        return {
          agent: args.agent,
          settingsPath: `/h/.${args.agent}/settings.json`,
          installed,
          diff: installed ? "-  \"hooks\": {}" : "+  \"hooks\": { \"PermissionRequest\": [] }",
          token: installed ? "tok-uninstall" : "tok-install",
        };
      if (cmd === "set_hook") {
        installed = args.installed;
        return { settingsPath: "/h/.claude/settings.json", backupPath: "/h/.claude/settings.json.plandeck-backup-1", changed: true, message: "Installed." };
      }
    });
    render(SettingsView, { overview: null });
    const claude = await screen.findByTestId("hook-claude");
    await waitFor(() => expect(claude).toHaveTextContent("not installed"));
    expect(calls.some(([c]) => c === "set_hook")).toBe(false);
    await fireEvent.click(within(claude).getByText("Install…"));
    expect(claude.querySelector(".diff .plus")).toHaveTextContent("PermissionRequest");
    await fireEvent.click(within(claude).getByTestId("apply-hook"));
    await waitFor(() => expect(calls.find(([c]) => c === "set_hook")?.[1]).toEqual({ agent: "claude", installed: true, token: "tok-install" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Backup: /h/.claude/settings.json.plandeck-backup-1");
    await waitFor(() => expect(claude).toHaveTextContent("installed"));
  });

  it("shows the new change when the settings file changed since it was shown", async () => {
    let version = 1;
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      if (cmd === "hook_status")
        return {
          agent: args.agent,
          settingsPath: `/h/.${args.agent}/settings.json`,
          installed: false,
          diff: `+  "v${version}": true`,
          token: `tok-${version}`,
        };
      if (cmd === "set_hook") {
        expect(args.token).toBe("tok-1");
        version = 2;
        throw { kind: "conflict", message: "/h/.claude/settings.json changed since the change to it was shown; nothing was written" };
      }
    });
    render(SettingsView, { overview: null });
    const claude = await screen.findByTestId("hook-claude");
    await waitFor(() => expect(claude).toHaveTextContent("not installed"));
    await fireEvent.click(within(claude).getByText("Install…"));
    expect(claude.querySelector(".diff")).toHaveTextContent("v1");
    await fireEvent.click(within(claude).getByTestId("apply-hook"));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveAttribute("data-kind", "conflict");
    expect(alert).toHaveTextContent("changed since");
    // The diff on screen is the new one, still open for the person to look at again.
    await waitFor(() => expect(claude.querySelector(".diff")).toHaveTextContent("v2"));
  });

  it("adds a repository picked by the shell: no path is sent", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      calls.push([cmd, args]);
      if (cmd === "hook_status")
        return { agent: args.agent, settingsPath: "/s", installed: false, diff: "", token: "t" };
      if (cmd === "add_repo") return "/home/me/src/app";
    });
    let changed = 0;
    render(SettingsView, { overview: null, onChanged: () => changed++ });
    await fireEvent.click(await screen.findByTestId("add-repo"));
    expect(await screen.findByRole("status")).toHaveTextContent("Added /home/me/src/app.");
    const call = calls.find(([c]) => c === "add_repo");
    expect(call?.[1] ?? {}).toEqual({});
    expect(changed).toBe(1);
  });

  it("adds a folder of plans through the shell's picker: the webview sends no path", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      calls.push([cmd, args]);
      if (cmd === "hook_status") return { agent: args.agent, settingsPath: "/h/s.json", installed: false, diff: "", token: "t" };
      if (cmd === "add_plan_folder") return "/h/notes/plans";
    });
    render(SettingsView, { overview: null });
    await fireEvent.click(await screen.findByText("Add a folder of plans…"));
    expect(await screen.findByRole("status")).toHaveTextContent("Added /h/notes/plans.");
    const sent = calls.find(([c]) => c === "add_plan_folder")?.[1] ?? {};
    expect(Object.keys(sent)).toEqual([]);
    expect(calls.some(([c]) => c.startsWith("plugin:dialog"))).toBe(false);
  });

  it("installs Claude Code's Stop hook like the plan hooks: its status, the change shown first, one Install that writes it", async () => {
    const calls: [string, any][] = [];
    let installed = false;
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      calls.push([cmd, args]);
      if (cmd === "hook_status") return { agent: args.agent, settingsPath: "/h/s.json", installed: false, diff: "", token: "t" };
      if (cmd === "stop_hook_status")
        return {
          agent: "claude",
          settingsPath: "/h/.claude/settings.json",
          installed,
          diff: installed ? "-    \"Stop\": [" : "+    \"Stop\": [ … hook claude-stop",
          token: installed ? "stop-un" : "stop-in",
        };
      if (cmd === "set_stop_hook") {
        installed = args.installed;
        return { settingsPath: "/h/.claude/settings.json", backupPath: null, changed: true, message: "installed the Stop hook in /h/.claude/settings.json" };
      }
    });
    render(SettingsView, { overview: null });
    const stop = await screen.findByTestId("hook-claude-stop");
    await waitFor(() => expect(stop).toHaveTextContent("not installed"));
    await fireEvent.click(within(stop).getByText("Install…"));
    expect(stop.querySelector(".diff .plus")).toHaveTextContent("hook claude-stop");
    expect(calls.some(([c]) => c === "set_stop_hook")).toBe(false);
    await fireEvent.click(within(stop).getByTestId("apply-hook"));
    await waitFor(() => expect(calls.find(([c]) => c === "set_stop_hook")?.[1]).toEqual({ installed: true, token: "stop-in" }));
    expect(await screen.findByRole("status")).toHaveTextContent("installed the Stop hook");
    await waitFor(() => expect(within(stop).getByText("installed")).toHaveClass("ok"));
    expect(stop.querySelector(".diff")).toBeNull();
  });

  it("offers the teammate gate of Claude Code agent teams only when asked: the PreToolUse change shown first, one Install that writes it", async () => {
    const calls: [string, any][] = [];
    let installed = false;
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      calls.push([cmd, args]);
      if (cmd === "hook_status") return { agent: args.agent, settingsPath: "/h/s.json", installed: false, diff: "", token: "t" };
      if (cmd === "team_hook_status")
        return {
          agent: "claude",
          settingsPath: "/h/.claude/settings.json",
          installed,
          diff: installed ? "-    \"PreToolUse\": [" : "+    \"PreToolUse\": [ … hook claude-team … \"onFailure\": \"block\"",
          token: installed ? "team-un" : "team-in",
        };
      if (cmd === "set_team_hook") {
        installed = args.installed;
        return { settingsPath: "/h/.claude/settings.json", backupPath: null, changed: true, message: "installed the teammate gate in /h/.claude/settings.json" };
      }
    });
    render(SettingsView, { overview: null });
    const team = await screen.findByTestId("hook-claude-team");
    await waitFor(() => expect(team).toHaveTextContent("not installed"));
    expect(team).toHaveTextContent("never approves");
    await fireEvent.click(within(team).getByText("Install…"));
    expect(team.querySelector(".diff .plus")).toHaveTextContent("hook claude-team");
    // Nothing is written until the shown change is confirmed.
    expect(calls.some(([c]) => c === "set_team_hook")).toBe(false);
    await fireEvent.click(within(team).getByTestId("apply-hook"));
    await waitFor(() => expect(calls.find(([c]) => c === "set_team_hook")?.[1]).toEqual({ installed: true, token: "team-in" }));
    await waitFor(() => expect(within(team).getByText("installed")).toHaveClass("ok"));
  });

  it("Cancel closes the change unwritten and says nothing", async () => {
    const calls: string[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      calls.push(cmd);
      if (cmd === "hook_status" || cmd === "stop_hook_status")
        return { agent: args?.agent ?? "claude", settingsPath: "/h/s.json", installed: false, diff: "+ x", token: "t" };
    });
    render(SettingsView, { overview: null });
    const claude = await screen.findByTestId("hook-claude");
    await waitFor(() => expect(claude).toHaveTextContent("not installed"));
    await fireEvent.click(within(claude).getByText("Install…"));
    await fireEvent.click(within(claude).getByText("Cancel"));
    expect(claude.querySelector(".diff")).toBeNull();
    expect(screen.queryByRole("status")).toBeNull();
    expect(calls).not.toContain("set_hook");
  });

  it("a folder chooser cancelled says nothing", async () => {
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return agentList;
      if (cmd === "phone_status") return phoneOff;
      if (cmd === "hook_status" || cmd === "stop_hook_status") return { agent: args?.agent ?? "claude", settingsPath: "/s", installed: false, diff: "", token: "t" };
      if (cmd === "add_repo" || cmd === "add_plan_folder") return null;
    });
    let changed = 0;
    render(SettingsView, { overview: null, onChanged: () => changed++ });
    await fireEvent.click(await screen.findByTestId("add-repo"));
    await fireEvent.click(screen.getByText("Add a folder of plans…"));
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(changed).toBe(0);
  });

  it("lists a hook for every agent core says can be gated and a Stop hook where it has one, a fourth agent included", async () => {
    const asked: string[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_agents") return withFourthAgent({ plans: true, gate: true });
      if (cmd === "hook_status") {
        asked.push(args.agent);
        return { agent: args.agent, settingsPath: `/h/.${args.agent}/settings.json`, installed: false, diff: "", token: "t" };
      }
      if (cmd === "stop_hook_status") return { agent: "claude", settingsPath: "/h/.claude/settings.json", installed: true, diff: "", token: "t" };
    });
    render(SettingsView, { overview: null });
    const aider = await screen.findByTestId("hook-aider");
    expect(aider).toHaveTextContent("Aider");
    await waitFor(() => expect(aider).toHaveTextContent("not installed"));
    expect(screen.getByTestId("hook-claude")).toHaveTextContent("Claude Code");
    expect(screen.getByTestId("hook-gemini")).toHaveTextContent("Gemini CLI");
    // Codex has no plan-approval hook; only Claude Code has a Stop hook.
    expect(screen.queryByTestId("hook-codex")).toBeNull();
    expect(screen.getByTestId("hook-claude-stop")).toHaveTextContent("Claude Code: Stop hook");
    expect(screen.queryByTestId("hook-aider-stop")).toBeNull();
    expect(asked.sort()).toEqual(["aider", "claude", "gemini"]);
  });
});
