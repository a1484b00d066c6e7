import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import SettingsView from "./SettingsView.svelte";

describe("SettingsView", () => {
  it("shows the change to the agent's settings before installing its hook", async () => {
    const calls: [string, any][] = [];
    let installed = false;
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "hook_status")
        return {
          agent: args.agent,
          settingsPath: `/h/.${args.agent}/settings.json`,
          installed,
          diff: installed ? "-  \"hooks\": {}" : "+  \"hooks\": { \"PermissionRequest\": [] }",
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
    await waitFor(() => expect(calls.find(([c]) => c === "set_hook")?.[1]).toEqual({ agent: "claude", installed: true }));
    expect(await screen.findByRole("status")).toHaveTextContent("Backup: /h/.claude/settings.json.plandeck-backup-1");
    await waitFor(() => expect(claude).toHaveTextContent("installed"));
  });

  it("adds a folder of plans through the shell's picker: the webview sends no path", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "hook_status") return { agent: args.agent, settingsPath: "/h/s.json", installed: false, diff: "" };
      if (cmd === "add_plan_folder") return "/h/notes/plans";
    });
    render(SettingsView, { overview: null });
    await fireEvent.click(await screen.findByText("Add a folder of plans…"));
    expect(await screen.findByRole("status")).toHaveTextContent("Added /h/notes/plans.");
    const sent = calls.find(([c]) => c === "add_plan_folder")?.[1] ?? {};
    expect(Object.keys(sent)).toEqual([]);
    expect(calls.some(([c]) => c.startsWith("plugin:dialog"))).toBe(false);
  });
});
