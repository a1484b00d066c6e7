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

export type Verdict = "approved" | "rejected";

export type Decision = { 
/**
 * When, RFC 3339 UTC.
 */
time: string, 
/**
 * The OS user who decided.
 */
reviewer: string, planPath: string, agent: Agent, sessionId: string | null, decision: Verdict, 
/**
 * The reviewer's words to the agent (required on a rejection).
 */
feedback: string | null, 
/**
 * The version approved (its snapshot is in the store before this line is written).
 */
approvedHash: string | null, 
/**
 * The version the decision was about: the approved one, or the rejected file's content.
 */
contentHash: string | null, 
/**
 * The reviewer edited the plan before approving it.
 */
edited: boolean, 
/**
 * How the decision reached the agent: "auto" (Plandeck answered it) or "manual".
 */
mode: string | null, };

export type ApproveRequest = { 
/**
 * The edited plan to write and approve; `None` approves the file as it is.
 */
edited: string | null, 
/**
 * Hash of the text the reviewer started from (saw or began editing). When given, the file
 * must still hold it, or the approval is a conflict.
 */
startedFrom: string | null, 
/**
 * Which agent wrote the plan; derived from the path when `None`.
 */
agent: Agent | null, sessionId: string | null, 
/**
 * "auto" | "manual": how the decision reaches the agent.
 */
mode: string | null, };

export type VersionInfo = { hash: string, 
/**
 * When Plandeck last saw the plan file hold this version (RFC 3339 UTC).
 */
seenAt: string, 
/**
 * Some approval pinned this version.
 */
approved: boolean, 
/**
 * The plan file holds this version now.
 */
current: boolean, 
/**
 * Size in bytes (0 when the snapshot is missing).
 */
size: number, };

export type PlanHistory = { planPath: string, 
/**
 * The last approved version, if any.
 */
approvedHash: string | null, 
/**
 * The plan file's current version (`None` when the file is gone or unreadable).
 */
currentHash: string | null, versions: Array<VersionInfo>, decisions: Array<Decision>, };

export type DiffStats = { added: number, removed: number, };

export type LineKind = "equal" | "insert" | "delete";

export type Segment = { text: string, changed: boolean, };

export type DiffLine = { kind: LineKind, oldNo: number | null, newNo: number | null, segments: Array<Segment>, };

export type Hunk = { 
/**
 * 1-based first old line (as in `@@ -oldStart,oldLen`).
 */
oldStart: number, oldLen: number, newStart: number, newLen: number, lines: Array<DiffLine>, };

export type SideRow = { hunk: number, left: DiffLine | null, right: DiffLine | null, };

export type PlanDiff = { 
/**
 * The old side's version (`None`: nothing approved yet, so the old side is empty).
 */
fromHash: string | null, toHash: string, fromLabel: string, toLabel: string, stats: DiffStats, hunks: Array<Hunk>, rows: Array<SideRow>, 
/**
 * The new text rendered, with deleted blocks in `div.diff-del` and inserted ones in
 * `div.diff-ins`; sanitized.
 */
renderedHtml: string, };
