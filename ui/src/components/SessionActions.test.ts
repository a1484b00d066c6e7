import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import SessionActions from "./SessionActions.svelte";
import { sessionSummary } from "../test-fixtures";

const ID = "@lab/3f2b8c1e";

describe("SessionActions", () => {
  it("sends a message, and shows a refusal onto a draft as core says it", async () => {
    const calls: [string, any][] = [];
    let draft = true;
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "send_to_agent") {
        if (draft) throw { kind: "refused", message: "the agent's input box in tmux pane %3 holds text someone is typing (\"half\")" };
        return "typed into tmux pane %3 and submitted";
      }
    });
    render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "waiting_for_input" }) });
    await fireEvent.click(screen.getByRole("button", { name: "Send message…" }));
    await fireEvent.input(screen.getByLabelText("Message to the agent"), { target: { value: "next step" } });
    await fireEvent.keyDown(screen.getByLabelText("Message to the agent"), { key: "Enter" });
    expect((await screen.findByRole("alert")).textContent).toContain("holds text someone is typing");
    draft = false;
    await fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect((await screen.findByRole("status")).textContent).toContain("submitted");
    expect(calls.filter(([c]) => c === "send_to_agent").map(([, a]) => a)).toEqual([
      { id: ID, text: "next step" },
      { id: ID, text: "next step" },
    ]);
  });

  it("says a message starting with ! or / runs a command, and sends it only once confirmed", async () => {
    const sent: string[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "send_to_agent") {
        sent.push(args.text);
        return "typed into tmux pane %3 and submitted";
      }
    });
    render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "waiting_for_input" }) });
    await fireEvent.click(screen.getByRole("button", { name: "Send message…" }));
    for (const [text, kind, words] of [
      ["!rm -rf build", "shell", "shell command"],
      [" /clear", "slash", "slash command"],
    ] as const) {
      const box = screen.getByLabelText("Message to the agent");
      await fireEvent.input(box, { target: { value: text } });
      expect(screen.getByTestId("message-command")).toHaveAttribute("data-command", kind);
      // Enter and Send both ask first; nothing goes.
      await fireEvent.keyDown(box, { key: "Enter" });
      expect(screen.getByTestId("confirm-command-ask")).toHaveTextContent(words);
      await fireEvent.keyDown(box, { key: "Enter" });
      expect(sent).toEqual(text === "!rm -rf build" ? [] : ["!rm -rf build"]);
      if (kind === "shell") {
        // Edited after the question: asked again for the new text.
        await fireEvent.click(screen.getByTestId("edit-command"));
        await fireEvent.input(box, { target: { value: text } });
        await fireEvent.click(screen.getByTestId("send-message"));
        expect(screen.getByTestId("confirm-command-ask")).toBeInTheDocument();
      }
      await fireEvent.click(screen.getByTestId("confirm-command"));
      await waitFor(() => expect(sent.at(-1)).toBe(text));
      await fireEvent.click(await screen.findByRole("button", { name: "Send message…" }));
    }
    // A plain message goes at once.
    await fireEvent.input(screen.getByLabelText("Message to the agent"), { target: { value: "next step" } });
    expect(screen.queryByTestId("message-command")).toBeNull();
    await fireEvent.click(screen.getByTestId("send-message"));
    await waitFor(() => expect(sent).toEqual(["!rm -rf build", " /clear", "next step"]));
  });

  it("interrupts only after the confirm", async () => {
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "interrupt_session") return "pressed Esc in tmux pane %3";
    });
    render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "working" }) });
    await fireEvent.click(screen.getByRole("button", { name: "Interrupt" }));
    expect(calls).toEqual([]);
    await fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(calls).toEqual([]);
    await fireEvent.click(screen.getByRole("button", { name: "Interrupt" }));
    screen.getByRole("alertdialog", { name: "Interrupt" });
    await fireEvent.click(screen.getByRole("button", { name: "Interrupt" }));
    await waitFor(() => expect(calls).toEqual(["interrupt_session"]));
  });

  it("lists what stopping ends, then stops with that list's token", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "stop_preview")
        return { id: ID, agent: "claude", pid: 4242, command: "/usr/bin/claude --resume x", processes: [{ pid: 4242, command: "/usr/bin/claude --resume x" }, { pid: 4250, command: "node mcp.js" }], token: "tok-9" };
      if (cmd === "stop_session") return { ended: [4242, 4250], message: "ended Claude Code (pid 4242) and 1 of its own processes" };
    });
    render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "working" }) });
    await fireEvent.click(screen.getByRole("button", { name: "Stop…" }));
    const listed = await screen.findByTestId("stop-processes");
    expect(listed.textContent).toContain("4242");
    expect(listed.textContent).toContain("node mcp.js");
    expect(calls.map(([c]) => c)).toEqual(["stop_preview"]);
    await fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect((await screen.findByRole("status")).textContent).toContain("ended Claude Code");
    expect(calls[1]).toEqual(["stop_session", { id: ID, token: "tok-9" }]);
  });

  it("refuses to list a person's own process, and offers only Resume on an ended session", async () => {
    mockIPC((cmd) => {
      if (cmd === "stop_preview") throw { kind: "refused", message: "pid 7 (-bash) is not Claude Code's own process: Plandeck ends only the agent it can name; nothing was ended" };
      if (cmd === "resume_session") {
        if (live) throw { kind: "refused", message: "session @lab/3f2b8c1e still runs (pid 7): it is not resumed twice" };
        return { tmuxSession: "api-claude", attach: "tmux attach -t api-claude" };
      }
    });
    let live = true;
    const { unmount } = render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "idle" }) });
    await fireEvent.click(screen.getByRole("button", { name: "Stop…" }));
    expect((await screen.findByRole("alert")).textContent).toContain("nothing was ended");
    expect(screen.queryByTestId("stop-processes")).toBeNull();
    // A running session is not offered Resume (issue 34).
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
    unmount();
    // No news for a while: either; core refuses a resume of one that still runs, with why.
    const unknown = render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "unknown" }) });
    await fireEvent.click(screen.getByRole("button", { name: "Resume" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("not resumed twice"));
    unknown.unmount();
    live = false;
    render(SessionActions, { session: sessionSummary({ sessionId: ID, state: "ended" }) });
    // Only Resume: every button the ended card shows, by name.
    expect(screen.getAllByRole("button").map((b) => b.textContent?.trim())).toEqual(["Resume"]);
    await fireEvent.click(screen.getByRole("button", { name: "Resume" }));
    expect((await screen.findByRole("status")).textContent).toContain("tmux attach -t api-claude");
    // Said for a while, not for ever: dismissed with its × (or gone by itself, NOTE_MS later).
    await fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("status")).toBeNull();
  });
});
