// Data the component tests share (imported by *.test.ts only; never part of the app's bundle).
import type { SessionSummary } from "./lib/bindings";

/** A session summary with every field set (nulls where a session may lack it), then `over`. */
export const sessionSummary = (over: Partial<SessionSummary> = {}): SessionSummary =>
  ({
    agent: "claude",
    sessionId: "00000000-0000-0000-0000-000000000000",
    cwd: "/h/work/api",
    state: "idle",
    permissionMode: null,
    planPath: null,
    worktree: null,
    lastActivity: new Date().toISOString(),
    gitBranch: null,
    tmuxPane: null,
    pid: null,
    version: null,
    model: null,
    name: null,
    title: null,
    unreadableLines: 0,
    tasks: null,
    transcriptPath: null,
    reviewState: null,
    ...over,
  }) as SessionSummary;
