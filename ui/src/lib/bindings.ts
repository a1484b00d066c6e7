// Generated from the Rust types by `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`.
// Do not edit by hand: a test fails when this file is stale.

export type Agent = "claude" | "gemini" | "codex" | "other";

export type ErrorKind = "notFound" | "conflict" | "refused" | "badInput" | "io" | "git" | "internal";

export type IpcError = { kind: ErrorKind, message: string, };

export type Overview = { sources: Array<SourceStatus>, 
/**
 * Plandeck's own store.
 */
dataDir: string, settingsFile: string, 
/**
 * True when the app was started on the demo workspace.
 */
demo: boolean, };

export type SourceStatus = { agent: Agent, name: string, root: string, rootExists: boolean, folders: Array<Folder>, };

export type Folder = { 
/**
 * What the folder holds, e.g. "plans" or "transcripts".
 */
label: string, path: string, exists: boolean, 
/**
 * How many files of the kind were found (bounded walk; see [`count_files`]).
 */
files: number, };

export type ReviewState = "unreviewed" | "approved" | "changed" | "rejected";

export type SessionState = "waiting_for_approval" | "waiting_for_input" | "crashed" | "working" | "idle" | "unknown" | "ended";

export type TaskProgress = { done: number, total: number, };

export type SessionSummary = { agent: Agent, sessionId: string, 
/**
 * The working directory the records name ("" when no record read named one).
 */
cwd: string, state: SessionState, 
/**
 * plan / default / acceptEdits / auto / bypassPermissions … (Codex: its approval policy).
 */
permissionMode: string | null, planPath: string | null, 
/**
 * The worktree the session works in now (`worktree-state`), if any.
 */
worktree: string | null, 
/**
 * RFC 3339, UTC: the latest record or registry update.
 */
lastActivity: string | null, gitBranch: string | null, tmuxPane: string | null, pid: number | null, version: string | null, model: string | null, 
/**
 * The registry's name for the session (Claude Code), if any.
 */
name: string | null, 
/**
 * The first prompt, on one line, cut to 100 characters.
 */
title: string | null, unreadableLines: number, tasks: TaskProgress | null, transcriptPath: string | null, 
/**
 * The review state of its plan.
 */
reviewState: ReviewState | null, };
