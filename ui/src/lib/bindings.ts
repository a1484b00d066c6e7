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
