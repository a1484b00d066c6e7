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

export type WorktreeSummary = { 
/**
 * The repository: its main worktree's folder (the common git dir for a bare repository).
 */
repo: string, 
/**
 * The worktree's folder.
 */
path: string, 
/**
 * The checked-out branch (short name); none when HEAD is detached.
 */
branch: string | null, 
/**
 * HEAD's commit id; none on an unborn branch.
 */
head: string | null, 
/**
 * Commit id of the base that unmerged commits are counted against; none when unknown.
 */
base: string | null, 
/**
 * Where the base came from: "originalHeadCommit", an upstream ("origin/feature"), the branch it
 * was created from, or the default branch ("origin/main", "main").
 */
baseName: string | null, 
/**
 * Staged + unstaged + untracked paths, not ignored: the lines `git status --porcelain` prints.
 */
changedFiles: number, 
/**
 * Commits on HEAD not on the base; none when the base is unknown.
 */
unmergedCommits: number | null, locked: boolean, lockReason: string | null, isMain: boolean, 
/**
 * Git's metadata is left but the folder is gone (`git worktree prune` would drop it).
 */
prunable: boolean, 
/**
 * Bytes on disk under the folder (git dir excluded); none when not measured.
 */
sizeBytes: number | null, 
/**
 * The session working in this worktree, from the transcripts.
 */
sessionId: string | null, 
/**
 * The person chose Keep for it.
 */
kept: boolean, 
/**
 * Something that could not be read, said plainly; the counts are then incomplete.
 */
problem: string | null, };

export type CommitLine = { id: string, summary: string, };

export type Refusal = { "kind": "dirty", count: number, } | { "kind": "unmerged", count: number, } | { "kind": "baseUnknown" } | { "kind": "locked", reason: string | null, sessionId: string | null, stale: boolean, } | { "kind": "main" } | { "kind": "notAWorktree", why: string, } | { "kind": "unreadable", problem: string, } | { "kind": "runningSession", sessionId: string, };

export type RemovalPreview = { worktree: WorktreeSummary, 
/**
 * The first 200 changed paths, each as `git status --porcelain` prints it ("XY path").
 */
changedFiles: Array<string>, 
/**
 * The first 100 unmerged commits, newest first.
 */
unmergedCommits: Array<CommitLine>, refusals: Array<Refusal>, 
/**
 * True when every refusal may be confirmed (then removal with `discard` goes ahead).
 */
confirmable: boolean, 
/**
 * The ref the branch tip would be saved under.
 */
archiveRef: string | null, 
/**
 * Exactly what would be lost, as text for the confirmation dialog; empty when nothing.
 */
lossSummary: string, };

export type RemoveOutcome = { removed: boolean, 
/**
 * Where the branch tip (or detached HEAD) was saved: `refs/plandeck/archive/<branch>`.
 */
archiveRef: string | null, branchDeleted: string | null, tmuxSessionKilled: string | null, };
