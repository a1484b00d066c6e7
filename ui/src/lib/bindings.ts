// Generated from the Rust types by `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`.
// Do not edit by hand: a test fails when this file is stale.

export type ErrorKind = "notFound" | "conflict" | "planChanged" | "refused" | "badInput" | "io" | "git" | "unsupported" | "unreachable" | "internal";

export type IpcError = { kind: ErrorKind, message: string, };

export type Overview = { sources: Array<SourceStatus>, 
/**
 * Plandeck's own store.
 */
dataDir: string, settingsFile: string, 
/**
 * True when the app was started on the demo workspace or loaded it ("Leave the demo" goes
 * back to the person's own folders).
 */
demo: boolean, 
/**
 * The home folder the roots were resolved from: the window shows paths under it as `~/…`.
 */
home: string, 
/**
 * Repositories added in Settings (their worktrees are listed even with no session seen).
 */
repos: Array<string>, };

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

export type Agent = "claude" | "gemini" | "codex" | "other";

export type Capabilities = { 
/**
 * It writes plan files Plandeck lists.
 */
plans: boolean, 
/**
 * Its sessions are listed (transcripts, chats, rollouts).
 */
sessions: boolean, 
/**
 * Its plan approvals can wait for a reviewer: a plan-approval hook Plandeck installs.
 */
gate: boolean, 
/**
 * Verify reads what it did after an approval from its records.
 */
verify: boolean, 
/**
 * A hook that hands it verify's report before it stops can be installed.
 */
stopHook: boolean, };

export type CardChoice = { key: number, label: string, };

export type CardChoices = { approveAuto: CardChoice, approveManual: CardChoice, feedback: CardChoice, };

export type AgentInfo = { id: Agent, name: string, capabilities: Capabilities, 
/**
 * Its plan-approval card's choices, when Plandeck answers one.
 */
card: CardChoices | null, };

export type PlanSummary = { 
/**
 * [`crate::ids::plan_id`] of `path`.
 */
id: string, path: string, agent: Agent, 
/**
 * The first heading, else the file name.
 */
title: string, 
/**
 * The project directory the plan belongs to, when known.
 */
project: string | null, sessionId: string | null, gitBranch: string | null, 
/**
 * Where the plan stands, from every source: `waiting` (an agent waits for a decision on it
 * now), else Plandeck's decision, else the agent's own recorded decision, else `unreviewed`.
 * Settled by [`crate::standing::settle`]; `unreviewed` as [`list`] and [`get`] give it.
 */
state: ReviewState, 
/**
 * Where the decision `state` shows was made (`plandeck`, `terminal`, `hook`, `headless`);
 * null when unreviewed or waiting.
 */
decidedIn: DecidedIn | null, 
/**
 * The gate request waiting for this plan, when `state` is `waiting`.
 */
waitingRequest: string | null, 
/**
 * Last change of the file, RFC 3339 UTC.
 */
updatedAt: string | null, sizeBytes: number, 
/**
 * Why the plan cannot be shown (binary, not UTF-8, too large, unreadable), if it cannot.
 */
problem: string | null, 
/**
 * For a subagent's plan (`<slug>-agent-<id>.md`), the subagent's id.
 */
subagentId: string | null, 
/**
 * The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
 */
machine: string | null, };

export type PlanListing = { plans: Array<PlanSummary>, 
/**
 * One sentence per folder that could not be read.
 */
problems: Array<string>, };

export type PlanDocument = { plan: PlanSummary, 
/**
 * The markdown source.
 */
source: string, 
/**
 * Sanitized HTML.
 */
html: string, 
/**
 * The headings, for a table of contents.
 */
headings: Array<Heading>, 
/**
 * SHA-256 (hex) of `source`: what an edit started from, so approving the edit can refuse
 * when the file moved on (see [`crate::review::approve`]).
 */
contentHash: string, };

export type SearchHit = { id: string, title: string, 
/**
 * The plan's text around the first match, as a person reads it: plain text, the markdown
 * (`**`, `#`, backticks, list markers, link targets) left out, on one line.
 */
snippet: string, 
/**
 * Where the query is in `snippet`, each match in order, for highlighting. Empty when the
 * plan matched by its title or its markdown only (a link target).
 */
matches: Array<TextSpan>, };

export type TextSpan = { start: number, end: number, };

export type PlansChanged = { paths: Array<string>, 
/**
 * The plan ids of `paths` ([`crate::ids::plan_id`]), for the window, which names plans by id.
 * Empty with `paths`: any plan may have changed (read the list again).
 */
ids: Array<string>, };

export type Heading = { id: string, level: number, text: string, };

export type Rendered = { html: string, headings: Array<Heading>, };

export type ReviewState = "unreviewed" | "approved" | "changed" | "rejected" | "waiting";

export type DecidedIn = "plandeck" | "terminal" | "hook" | "headless" | "lead";

export type Verdict = "approved" | "rejected";

export type Delivery = "delivered" | "answeredInTerminal" | "pending" | "failed";

export type Decision = { 
/**
 * When (RFC 3339 UTC, to the second, in the log).
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
mode: string | null, 
/**
 * The gate request the decision answered (decisions taken through the gate only).
 */
requestId: string | null, 
/**
 * How the decision reached the agent (decisions taken through the gate only).
 */
delivery: Delivery | null, 
/**
 * Why delivery failed or is pending, for a person.
 */
deliveryReason: string | null, 
/**
 * The ids of the reviewer's comments that went with the decision (their quotes and text are
 * in `feedback`, or in the approved plan's "Reviewer notes").
 */
comments: Array<string>, 
/**
 * This decision's id (decisions recorded before ids were given have none): what a
 * revocation names.
 */
id: string | null, 
/**
 * This line undoes the decision with this id (the person chose Undo on a decision that was
 * only recorded). The log is append-only: the undone decision stays in it, and readers of
 * where a plan stands ([`read_all`]) skip both.
 */
revokes: string | null, 
/**
 * The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
 */
machine: string | null, 
/**
 * Who decided, from where, as the deciding Plandeck names itself: `plandeck serve (over SSH
 * from 192.0.2.7)` for a decision made from another machine; the window's or the command
 * line's own words here. Lines recorded before it was kept have none.
 */
decidedBy: string | null, };

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
 * Which agent wrote the plan; when `None`, what plan discovery links the file to (see
 * [`owner`]). Only the gate sets it (it knows the request's agent).
 */
agent: Agent | null, 
/**
 * The session that wrote the plan; when `None`, the one plan discovery links it to.
 */
sessionId: string | null, 
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
currentHash: string | null, versions: Array<VersionInfo>, decisions: Array<Decision>, 
/**
 * Who decides here ([`super::log::reviewer`]): the window names a decision's reviewer only
 * when it is someone else.
 */
you: string, };

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
 * The new text rendered, with deleted blocks in `div.diff-del[data-pd-diff=del]` and inserted
 * ones in `div.diff-ins[data-pd-diff=ins]`; sanitized (a plan cannot write `data-pd-diff`).
 */
renderedHtml: string, };

export type PlanDecision = { "decision": "approve", 
/**
 * For a waiting agent: auto-accept its edits (the default) or review each.
 */
mode: ApproveMode | null, 
/**
 * The reviewer's edit of the plan; `None` approves the plan as read.
 */
edited: string | null, } | { "decision": "reject", feedback: string, };

export type Route = "agent" | "recordedOnly" | "alreadyApproved";

export type PlanOutcome = { route: Route, verdict: Verdict, 
/**
 * What happened, in a sentence: "Approved: sent to Claude Code in tmux pane %3." or
 * "Recorded only: no agent is waiting for this plan. …".
 */
message: string, 
/**
 * The agent the decision went to (route `agent`).
 */
agent: Agent | null, 
/**
 * Its tmux pane, when known.
 */
tmuxPane: string | null, 
/**
 * The gate request answered (route `agent`).
 */
requestId: string | null, 
/**
 * How it reached the agent (route `agent`).
 */
delivery: Delivery | null, 
/**
 * The plan file now holds another text than the version read (the edit, or the reviewer
 * notes), read back from the file after the decision.
 */
written: boolean, 
/**
 * An edit was given, but it was the plan as read: approved as is, nothing written.
 */
unchangedEdit: boolean, 
/**
 * The log line of this decision (for `alreadyApproved`: the approval in force), when known.
 */
decision: Decision | null, 
/**
 * The id to pass to [`undo`]: set for a record-only decision that wrote no edit (an
 * approval or a rejection; the comments it carried are unsent again on undo).
 */
undoId: string | null, };

export type CommentsChanged = { plan: string | null, };

export type Anchor = { 
/**
 * The quoted text, exactly as it was.
 */
quote: string, 
/**
 * Up to 48 characters before the quote.
 */
before: string, 
/**
 * Up to 48 characters after the quote.
 */
after: string, 
/**
 * Byte offset of the quote in that version.
 */
start: number, };

export type Placement = { "kind": "kept", start: number, end: number, } | { "kind": "moved", start: number, end: number, } | { "kind": "changed", start: number, end: number, 
/**
 * 0..1, how much of the quote is left.
 */
similarity: number, } | { "kind": "gone" };

export type Comment = { 
/**
 * `c` + 12 hex digits, unique in the store.
 */
id: string, 
/**
 * The plan file the comment is on (the store's plan key).
 */
planPath: string, 
/**
 * The hash of the plan version the comment was made on.
 */
version: string, anchor: Anchor, text: string, 
/**
 * RFC 3339 UTC.
 */
createdAt: string, author: string, 
/**
 * Set when the reviewer resolved it.
 */
resolvedAt: string | null, 
/**
 * The decisions that carried this comment to the agent (their times), oldest first.
 */
sentWith: Array<string>, };

export type CommentStatus = "open" | "outdated" | "resolved";

export type PlacedComment = { status: CommentStatus, placement: Placement, 
/**
 * 1-based line of the comment's text in this version, when it is there.
 */
line: number | null, 
/**
 * `c` + 12 hex digits, unique in the store.
 */
id: string, 
/**
 * The plan file the comment is on (the store's plan key).
 */
planPath: string, 
/**
 * The hash of the plan version the comment was made on.
 */
version: string, anchor: Anchor, text: string, 
/**
 * RFC 3339 UTC.
 */
createdAt: string, author: string, 
/**
 * Set when the reviewer resolved it.
 */
resolvedAt: string | null, 
/**
 * The decisions that carried this comment to the agent (their times), oldest first.
 */
sentWith: Array<string>, };

export type CommentAction = "resolve" | "reopen" | "delete";

export type HistoryChanged = { plans: number, };

export type HistoryVerdict = "approved" | "rejected" | "cancelled" | "pending";

export type PlanSource = "file" | "transcript";

export type PlanVersion = { 
/**
 * The text submitted.
 */
text: string, 
/**
 * RFC 3339 UTC, as the transcript recorded it.
 */
submittedAt: string | null, 
/**
 * `null` when the records hold no decision to look for (a headless run, a carried text).
 */
verdict: HistoryVerdict | null, feedback: string | null, decidedIn: DecidedIn | null, decidedAt: string | null, 
/**
 * The text approved, when it differs from the one submitted (the person edited it).
 */
approvedText: string | null, 
/**
 * What the records could not tell, in a sentence.
 */
note: string | null, 
/**
 * The transcript it was read from.
 */
transcript: string, };

export type RecoveredPlan = { id: string, agent: Agent, sessionId: string | null, 
/**
 * The path its file had (none for Codex plans).
 */
path: string | null, 
/**
 * The session's working directory.
 */
project: string | null, title: string, 
/**
 * The latest text: the last version's approved text if it was approved, else its text.
 */
text: string, 
/**
 * The last version's verdict.
 */
state: HistoryVerdict | null, source: PlanSource, 
/**
 * A subagent's plan.
 */
subagent: boolean, 
/**
 * Oldest first.
 */
versions: Array<PlanVersion>, 
/**
 * The machine this is on (`plandeck hosts`); `null`: this one.
 */
machine: string | null, };

export type RecoveredPlanView = { plan: RecoveredPlan, html: string, };

export type Restored = { id: string, path: string, 
/**
 * False when the file already held exactly this text.
 */
written: boolean, };

export type ScanProgress = { 
/**
 * Transcripts looked at so far, of `files`.
 */
filesDone: number, files: number, 
/**
 * Bytes read so far, of `bytes` (what is new in the transcripts since the last scan).
 */
bytesDone: number, bytes: number, 
/**
 * The scan is over.
 */
done: boolean, };

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
title: string | null, 
/**
 * What the agent did last, on one line (its last tool call or the start of its last
 * message), from its records; cut to 100 characters.
 */
doing: string | null, unreadableLines: number, tasks: TaskProgress | null, transcriptPath: string | null, 
/**
 * The review state of its plan.
 */
reviewState: ReviewState | null, 
/**
 * The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
 */
machine: string | null, 
/**
 * Tokens (and cost where known) from the agent's own records, where they carry them.
 */
usage: SessionUsage | null, };

export type SessionUsage = { 
/**
 * Input tokens, cache reads and writes included.
 */
inputTokens: number, 
/**
 * Output tokens, reasoning included.
 */
outputTokens: number, 
/**
 * In US dollars, where the records tell it (Claude Code's `cost-state`); else null.
 */
costUsd: number | null, 
/**
 * Counted from part of the records (a large transcript's middle is not read): at least this.
 */
partial: boolean, };

export type IndexProgress = { read: number, total: number, ready: boolean, };

export type WorktreeSummary = { 
/**
 * Stable id of this worktree (a hash of its folder and its repository's common git dir): what
 * the window passes back to keep or remove it; resolved against a fresh listing.
 */
id: string, 
/**
 * Stable id of the repository (a hash of its common git dir), for "remove all clean" and
 * restore.
 */
repoId: string, 
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
 * Git's metadata is left but the folder is gone (`git worktree prune` would drop it). Only a
 * missing folder: a folder that exists is checked like any other, or refused.
 */
prunable: boolean, 
/**
 * Commits in its submodules found nowhere else (not on any branch or remote-tracking ref of
 * the submodule's own repository): removing the folder would lose them.
 */
submoduleCommits: number, 
/**
 * Bytes on disk under the folder (git dir excluded); none when not measured (the listing does
 * not walk folders: sizes come later, see [`Sizes`], or with [`ListOptions::sizes`]).
 */
sizeBytes: number | null, 
/**
 * The session working in this worktree, from the transcripts; a session hosted over ACP by
 * its card's id (`acps-…`).
 */
sessionId: string | null, 
/**
 * That session's plan file, where it has one (what "Verify its plan" opens).
 */
planPath: string | null, 
/**
 * The person chose Keep for it.
 */
kept: boolean, 
/**
 * Something that could not be read, said plainly; the counts are then incomplete.
 */
problem: string | null, 
/**
 * The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
 */
machine: string | null, };

export type CommitLine = { id: string, summary: string, };

export type FileStatus = "modified" | "added" | "deleted" | "untracked" | "renamed" | "copied" | "conflicted";

export type FileLine = { 
/**
 * Relative to the worktree; "old -> new" for a rename; ends with "/" for an untracked folder.
 */
path: string, status: FileStatus, };

export type WorktreeDetails = { 
/**
 * The first 200 changed files, by path.
 */
files: Array<FileLine>, 
/**
 * How many changed files there are in all.
 */
filesTotal: number, 
/**
 * The first 100 unmerged commits, newest first.
 */
commits: Array<CommitLine>, 
/**
 * How many unmerged commits there are in all (0 when the base is unknown).
 */
commitsTotal: number, 
/**
 * Something that could not be read, said plainly.
 */
problem: string | null, };

export type Refusal = { "kind": "dirty", count: number, } | { "kind": "unmerged", count: number, } | { "kind": "baseUnknown" } | { "kind": "locked", reason: string | null, sessionId: string | null, stale: boolean, } | { "kind": "main" } | { "kind": "notAWorktree", why: string, } | { "kind": "unreadable", problem: string, } | { "kind": "runningSession", sessionId: string, } | { "kind": "agentPane", pane: string, sessionId: string, pid: number, } | { "kind": "personPane", pane: string, session: string, command: string, } | { "kind": "submoduleCommits", submodule: string, count: number, } | { "kind": "unvalidated", why: string, };

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
lossSummary: string, 
/**
 * The agents' own tmux panes removal would end (each also a refusal to confirm).
 */
panesToEnd: Array<PaneLine>, 
/**
 * The person's tmux panes in the folder: never ended, left in a deleted folder.
 */
personPanes: Array<PaneLine>, 
/**
 * Submodule commits found nowhere else, per submodule.
 */
submoduleCommits: Array<SubmoduleCommits>, 
/**
 * A fingerprint of exactly what this preview shows (HEAD, every changed file, the unmerged
 * commits, the panes): removal with it goes ahead only while it is still true.
 */
token: string, };

export type RemoveOutcome = { removed: boolean, 
/**
 * Where the branch tip (or detached HEAD) was saved: `refs/plandeck/archive/<branch>`.
 */
archiveRef: string | null, branchDeleted: string | null, 
/**
 * Always none: Plandeck no longer kills tmux sessions (kept for the `--json` contract).
 */
tmuxSessionKilled: string | null, 
/**
 * The agents' own panes that were ended ("%3").
 */
panesEnded: Array<string>, };

export type PaneLine = { 
/**
 * tmux's pane id ("%3").
 */
pane: string, 
/**
 * The tmux session it belongs to.
 */
session: string, 
/**
 * What runs in it (`pane_current_command`).
 */
command: string, 
/**
 * The pane's process.
 */
pid: number, 
/**
 * The agent session whose process the pane runs; none for the person's panes.
 */
agentSessionId: string | null, };

export type SubmoduleCommits = { 
/**
 * The submodule's path in the worktree.
 */
submodule: string, count: number, 
/**
 * The first 100, newest first.
 */
commits: Array<CommitLine>, };

export type WorktreeSize = { 
/**
 * The listing's id.
 */
id: string, 
/**
 * Bytes on disk under the folder (`.git` excluded); none when it could not be measured.
 */
sizeBytes: number | null, };

export type GateStatus = "waiting" | "approving" | "approved" | "rejected" | "answeredInTerminal" | "expired" | "appStopped" | "agentGone";

export type GateRequest = { id: string, agent: Agent, sessionId: string, cwd: string, 
/**
 * The plan file the agent will read when the card is answered (absent if it was not found).
 */
planPath: string | null, 
/**
 * The plan's text as the agent submitted it.
 */
plan: string, 
/**
 * The `ExitPlanMode` tool_use id (Claude), found in the transcript's tail.
 */
toolUseId: string | null, transcriptPath: string | null, 
/**
 * Where in the transcript to look for the answer (bytes): the tool call's line, or the
 * transcript's length when the request was filed.
 */
transcriptOffset: number, 
/**
 * The tmux pane of the agent (`%3`), when it runs in tmux.
 */
tmuxPane: string | null, 
/**
 * The tmux server socket of that pane, when known from the agent's `$TMUX`.
 */
tmuxSocket: string | null, 
/**
 * When the hook filed it (RFC 3339).
 */
waitingSince: string, 
/**
 * When the hook stops waiting (Claude; RFC 3339). Gemini requests wait for the terminal.
 */
deadline: string, hookPid: number, 
/**
 * When the hook process started (`/proc/<pid>/stat` field 22), so that a pid reused by
 * another program is never taken for the waiting hook.
 */
hookStartTime: number | null, agentPid: number | null, 
/**
 * When the agent process started (`/proc/<pid>/stat` field 22), so that a pid reused by
 * another program is never taken for the agent.
 */
agentStartTime: number | null, 
/**
 * The agent runs headless (`claude -p` with a permission prompt handler, the Agent SDK):
 * there is no card to answer, and the hook's first answer is final (the request closes as
 * the hook answers).
 */
headless: boolean, 
/**
 * The approval was handed to the waiting hook (Claude Code), not typed: whether the agent
 * took it, or the person answered the card first, is read from the transcript's answer.
 */
throughHook: boolean, status: GateStatus, 
/**
 * When it was closed (RFC 3339).
 */
closedAt: string | null, 
/**
 * The decision taken in Plandeck, if any.
 */
decision: GateDecision | null, 
/**
 * Who took that decision, for a person ("approve by the Plandeck window at 18:42:03 UTC").
 */
decidedBy: string | null, 
/**
 * The hash (as `plans show --json` gives it) of the plan the agent acts on once approved:
 * the plan file as it is now, or the submitted text when there is no readable file. Filled
 * in when requests are listed; a decision given it back ([`DeliveryOptions::seen_hash`]) is
 * refused when the plan changed since.
 */
planHash: string | null, 
/**
 * The text whose hash is `plan_hash`, when it is not `plan` (the plan file no longer holds
 * the text the agent submitted): what the window shows and compares a later listing with.
 * Filled in when requests are listed.
 */
planRead: string | null, 
/**
 * The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
 */
machine: string | null, 
/**
 * An approval decided now goes through the agent's waiting hook (Claude Code, in tmux or
 * not: no pane is needed), never typed. Filled in when requests are listed.
 */
approvesThroughHook: boolean, 
/**
 * The agent team of a teammate's plan (Claude Code agent teams: `session-1a2b3c4d`); `null`
 * for a plan that is not a teammate's.
 */
team: string | null, 
/**
 * The teammate's name in its team (`planner`), for a teammate's plan.
 */
teammate: string | null, 
/**
 * The session of the team's lead, for a teammate's plan (the lead approves the plan once
 * Plandeck let it through).
 */
leadSessionId: string | null, 
/**
 * What it asks: `plan` (a plan to approve: every hook's and card's request) or `permission`
 * (an ACP agent's tool: a command, an edit, a fetch).
 */
kind: RequestKind, 
/**
 * An ACP session's request (issue 36): what the agent asked, as data, and the options it
 * offered; `null` for a hook's or a card's. Its `hookPid` is the process hosting the session
 * (the per-user server, or `plandeck agents check`), which answers the agent.
 */
acp: AcpAsk | null, };

export type ApproveMode = "auto" | "manual";

export type GateDecision = { "decision": "approve", mode: ApproveMode, 
/**
 * The edited plan, written to the plan file before the card is answered.
 */
edited: string | null, 
/**
 * The text the reviewer started editing from; the edit is refused if the file moved on.
 */
startedFrom: string | null, } | { "decision": "reject", feedback: string, };

export type DecisionOutcome = { requestId: string, 
/**
 * The decision reached the agent (the card closed, or the hook took the rejection).
 */
delivered: boolean, 
/**
 * What happened, for a person ("approve in the terminal" when there is no pane), and why
 * when delivery failed.
 */
message: string, status: GateStatus, 
/**
 * How the decision reached the agent; `failed` when typing was refused or failed.
 */
delivery: Delivery, };

export type RequestKind = "plan" | "permission";

export type AcpOption = { optionId: string, name: string, 
/**
 * `allow_once`, `allow_always`, `reject_once`, `reject_always` (others kept as sent).
 */
kind: string, };

export type AcpDiff = { path: string, oldText: string | null, newText: string, };

export type AcpAsk = { 
/**
 * The ACP agent's name (`claude-acp`: `plandeck agents list`).
 */
agentName: string, toolCallId: string, 
/**
 * The tool call's title, on one visible line (bounded).
 */
title: string, 
/**
 * The tool call's kind as the agent sent it (`switch_mode`, `execute`, `edit`, …).
 */
toolKind: string | null, 
/**
 * A command the tool would run, on one visible line.
 */
command: string | null, 
/**
 * The file a tool would touch.
 */
path: string | null, 
/**
 * The change it would make to that file.
 */
diff: AcpDiff | null, 
/**
 * The agent's options: a decision answers with one of these, never another.
 */
options: Array<AcpOption>, 
/**
 * The option a decision chose (written by the decider, read by the session's host).
 */
chosen: string | null, };

export type InstallPlan = { settingsPath: string, 
/**
 * The file as it is ("" when it does not exist).
 */
before: string, 
/**
 * The file as it would be.
 */
after: string, changed: boolean, 
/**
 * Names exactly this change (the file as it is and as it would be): pass it back to write
 * only if the change is still this one.
 */
token: string, };

export type InstallReport = { settingsPath: string, 
/**
 * The copy of the previous file, when one was written.
 */
backupPath: string | null, changed: boolean, message: string, };

export type HookPreview = { agent: Agent, settingsPath: string, 
/**
 * The hook is in the agent's settings now.
 */
installed: boolean, 
/**
 * The diff of installing when not installed, else of uninstalling.
 */
diff: string, 
/**
 * Names exactly the change the diff shows; toggling proceeds only while it still is.
 */
token: string, };

export type Team = { 
/**
 * The team's name (`session-1a2b3c4d`).
 */
name: string, 
/**
 * The lead's session.
 */
leadSessionId: string | null, 
/**
 * The teammates (the lead itself not among them).
 */
members: Array<TeamMember>, 
/**
 * The machine the team runs on (`plandeck hosts`); `null`: this one.
 */
machine: string | null, };

export type TeamMember = { name: string, 
/**
 * Where it runs: `in-process` (in the lead's process) or `tmux` (a pane of its own).
 */
backend: string | null, 
/**
 * Its plan must be approved before it acts.
 */
planModeRequired: boolean, 
/**
 * Its own session, when it runs in a pane of its own and has filed a plan (in-process
 * teammates share the lead's).
 */
sessionId: string | null, 
/**
 * Its latest plan in Plandeck's gate: the request's id, status and plan file.
 */
requestId: string | null, planStatus: GateStatus | null, planPath: string | null, 
/**
 * The lead's verdict on its plan, as the teammate was told ("[Plan Approved] …"), when its
 * transcript is known.
 */
leadVerdict: string | null, };

export type AcpUsage = { inputTokens: number | null, outputTokens: number | null, costUsd: number | null, };

export type AcpEntry = { 
/**
 * `user`, `agent`, `thought`, `tool`, `plan`, `mode`, `note`.
 */
kind: string, text: string, 
/**
 * A tool call's id, its kind and status (`pending`, `in_progress`, `completed`, `failed`).
 */
toolCallId: string | null, toolKind: string | null, status: string | null, 
/**
 * A plan's entries: `[status, content]`.
 */
plan: Array<[string, string]>, 
/**
 * A message's or thought's text rendered as plans are (Markdown, sanitized): filled in when
 * the session is read for the window, never stored.
 */
html: string | null, };

export type AcpSession = { 
/**
 * Plandeck's id of the session (`acps-…`).
 */
id: string, 
/**
 * The ACP agent's name (`claude-acp`).
 */
agent: string, displayName: string, cwd: string, 
/**
 * The agent's own id of the session (`session/new`), once started.
 */
sessionId: string | null, 
/**
 * `starting`, `working` (a turn runs), `waiting` (a request waits for the person), `idle`
 * (no turn: Send is open), `ended`, `failed`.
 */
state: string, mode: string | null, modes: Array<string>, 
/**
 * Every way out of plan mode went through the person.
 */
gated: boolean, ungatedWhy: string | null, usage: AcpUsage, 
/**
 * Whether its agent can resume a session (`agentCapabilities.loadSession`): `false` and Resume
 * is refused, a new session offered instead; `null` when not known (not started yet, or a
 * record from before this was kept).
 */
canLoad: boolean | null, 
/**
 * Why it failed or ended, for a person.
 */
problem: string | null, hostPid: number, hostStartTime: number | null, agentPid: number | null, 
/**
 * RFC 3339.
 */
started: string, updated: string, entries: Array<AcpEntry>, 
/**
 * The machine this is on (`plandeck hosts`); `null`: this one.
 */
machine: string | null, };

export type AcpCommand = { "command": "send", text: string, } | { "command": "interrupt" } | { "command": "stop" } | { "command": "resume" };

export type AcpAgentChoice = { name: string, displayName: string, found: boolean, 
/**
 * The npm package that brings it (for "not installed").
 */
package: string, };

export type StartRequest = { agent: Agent, 
/**
 * The repository (its working folder) on this machine.
 */
repo: string, 
/**
 * A new worktree's name: its branch is named so; `None` starts in the repository itself.
 */
worktree: string | null, 
/**
 * The new branch's base (a branch, tag or commit); `None`: the repository's HEAD.
 */
base: string | null, 
/**
 * Start in the agent's plan mode.
 */
plan: boolean, 
/**
 * The first prompt, given to the CLI as its own argument.
 */
prompt: string | null, };

export type Started = { agent: Agent, 
/**
 * The tmux session, on the person's default server: `tmux attach -t <it>`.
 */
tmuxSession: string, 
/**
 * The pane the agent runs in (`%3`).
 */
pane: string, 
/**
 * The agent's process (the pane's first process).
 */
pid: number, 
/**
 * Where it runs: the new worktree, else the repository.
 */
cwd: string, 
/**
 * The worktree created for it, if any, and its branch.
 */
worktree: string | null, branch: string | null, 
/**
 * The agent's session id when known at start (Claude Code and Gemini CLI are given one);
 * Codex CLI names its session when it writes its rollout: until then steer it by
 * `tmux_session`.
 */
sessionId: string | null, 
/**
 * How the session is found when `session_id` is none.
 */
foundBy: string, plan: boolean, 
/**
 * The command that attaches to it from any terminal.
 */
attach: string, 
/**
 * The agent's plan hook when it is not installed: its plan would not wait in Plandeck's
 * queue; the window offers it (shown first, as Settings does).
 */
hook: HookPreview | null, };

export type StopPreview = { 
/**
 * The session as it was asked for.
 */
id: string, agent: Agent, 
/**
 * The agent's process and its command line.
 */
pid: number, command: string, 
/**
 * Every process that would be ended (the agent first, then its own children in its group).
 */
processes: Array<ProcessLine>, 
/**
 * Names exactly what is listed; stopping proceeds only while it still holds.
 */
token: string, };

export type ProcessLine = { pid: number, command: string, };

export type StopOutcome = { ended: Array<number>, message: string, };

export type AcpStartAsked = { 
/**
 * The hosted session's id (`acps-…`).
 */
id: string, agent: string, cwd: string, worktree: string | null, branch: string | null, plan: boolean, };

export type StepStatus = "done" | "partial" | "missing" | "unverifiable";

export type NameKind = "path" | "symbol" | "command";

export type Named = { kind: NameKind, value: string, 
/**
 * Changed (a path, or a symbol in a changed hunk) or run (a command) after approval.
 */
touched: boolean, 
/**
 * Why it cannot be checked (a path outside the repository), if so.
 */
note: string | null, };

export type ChangeKind = "added" | "modified" | "deleted" | "renamed";

export type ChangeSource = "git" | "tool";

export type Evidence = { "kind": "toolCall", 
/**
 * The agent's tool name.
 */
tool: string, 
/**
 * The file, relative to the worktree when inside it.
 */
file: string, at: string | null, 
/**
 * The transcript line (1-based) of the call.
 */
recordLine: number, 
/**
 * The tool reported an error (the change may not have happened).
 */
failed: boolean, } | { "kind": "gitChange", file: string, change: ChangeKind, 
/**
 * The hunk header (`@@ -1,3 +1,4 @@ fn x`) where a named symbol appears, if any.
 */
hunk: string | null, } | { "kind": "command", command: string, 
/**
 * `null` when the transcript holds no result (yet).
 */
success: boolean | null, exitCode: number | null, at: string | null, recordLine: number, } | { "kind": "notTouched", name: string, nameKind: NameKind, };

export type StepOverride = { status: StepStatus, note: string, 
/**
 * When, RFC 3339 UTC.
 */
at: string, 
/**
 * The OS user who overrode it.
 */
by: string, };

export type StepReport = { 
/**
 * 1-based, in plan order.
 */
index: number, 
/**
 * The step's text on one line (nested items joined), cut to a readable length.
 */
text: string, 
/**
 * 1-based line of the step in the approved text.
 */
line: number, names: Array<Named>, 
/**
 * The status shown: the override's when there is one, else the computed one.
 */
status: StepStatus, 
/**
 * The status the facts give.
 */
computedStatus: StepStatus, 
/**
 * A step about tests (it names a test command or says "test").
 */
test: boolean, evidence: Array<Evidence>, override: StepOverride | null, };

export type ChangedFile = { 
/**
 * Relative to the worktree (absolute when outside it: a tool call wrote there).
 */
path: string, change: ChangeKind, 
/**
 * The old path of a renamed file.
 */
from: string | null, additions: number, deletions: number, binary: boolean, 
/**
 * Where the change was seen.
 */
sources: Array<ChangeSource>, };

export type TestRun = { command: string, 
/**
 * `null` when the transcript holds no result (yet).
 */
passed: boolean | null, exitCode: number | null, at: string | null, recordLine: number, };

export type CommitSummary = { id: string, summary: string, 
/**
 * Commit time, RFC 3339 UTC.
 */
at: string | null, };

export type ApprovalSource = "plandeck" | "transcript";

export type ApprovalPoint = { source: ApprovalSource, 
/**
 * RFC 3339 UTC.
 */
at: string | null, 
/**
 * The worktree's HEAD at that time (from its reflog), when known.
 */
headAtApproval: string | null, 
/**
 * SHA-256 of the approved text.
 */
textHash: string, 
/**
 * Where the person decided (Plandeck, the terminal, a hook…), when the records say.
 */
decidedIn: DecidedIn | null, };

export type SessionRef = { agent: Agent, id: string, cwd: string | null, transcript: string | null, };

export type BaseKind = "approvalHead" | "mergeBase" | "none";

export type BaseRef = { kind: BaseKind, commit: string | null, 
/**
 * The branch the merge base was taken with (`kind: mergeBase`).
 */
branch: string | null, };

export type StatusCounts = { done: number, partial: number, missing: number, unverifiable: number, };

export type VerifyReport = { 
/**
 * The plan's id.
 */
plan: string, planPath: string | null, title: string, agent: Agent, 
/**
 * When the plan was approved (RFC 3339 UTC); `null` when no approval is on record.
 */
approvedAt: string | null, approval: ApprovalPoint | null, session: SessionRef | null, 
/**
 * The worktree (or repository) the changes were read in.
 */
worktree: string | null, base: BaseRef, steps: Array<StepReport>, 
/**
 * Changed files no step names.
 */
unplanned: Array<ChangedFile>, 
/**
 * Test commands run after approval.
 */
tests: Array<TestRun>, 
/**
 * Every changed file since the approval (git and tool calls), plan file excluded.
 */
changes: Array<ChangedFile>, 
/**
 * Commits since the base, oldest first.
 */
commits: Array<CommitSummary>, 
/**
 * What the facts could not tell, in sentences (bad input, rewritten history…).
 */
notes: Array<string>, counts: StatusCounts, 
/**
 * Hex SHA-256 of [`agent_report_text`]: the same for the same findings.
 */
reportHash: string, };

export type FileDiff = { path: string, 
/**
 * The file at the base (`null`: added, or no base).
 */
old: string | null, 
/**
 * The file in the worktree now (`null`: deleted).
 */
new: string | null, 
/**
 * One side is not UTF-8 text (or too large): no text is given.
 */
binary: boolean, 
/**
 * Why a side is not shown (outside the worktree, too large…), if so.
 */
note: string | null, };

export type RootsChanged = { 
/**
 * The app now shows the demo workspace.
 */
demo: boolean, };

export type SessionsChanged = { sessionIds: Array<string>, 
/**
 * Of those, the ones that started waiting for the person (approval or input).
 */
startedWaiting: Array<string>, };

export type WorktreesChanged = { 
/**
 * The ids of the worktrees that changed, when known (empty: read the list again).
 */
ids: Array<string>, };

export type GateChanged = { arrived: Array<string>, updated: Array<string>, closed: Array<string>, };

export type AcpChanged = { ids: Array<string>, };

export type Screen = { 
/**
 * The pane's size: the view draws exactly this many columns and rows.
 */
cols: number, rows: number, 
/**
 * Written into a fresh terminal of that size, it shows the pane's screen (and its
 * scrollback above), cursor included.
 */
data: string, };

export type TerminalView = { 
/**
 * `t7` here; `@box/t7` on another machine.
 */
view: string, sessionId: string, 
/**
 * The tmux pane (`%3`).
 */
pane: string, 
/**
 * The tmux session holding it: `tmux attach -t` it from any terminal.
 */
tmuxSession: string, screen: Screen, 
/**
 * The agent is known and its pane may take the person's keys (take control); else why not.
 */
controlRefused: string | null, 
/**
 * The machine this is on; `null`: this one.
 */
machine: string | null, };

export type TerminalOutput = { view: string, 
/**
 * The bytes as text (whole characters; bytes that are not UTF-8 as U+FFFD).
 */
data: string, 
/**
 * Start again from this screen first (the pane resized, or its output was too much to
 * stream): clear the view, take this size, write `screen.data`, then `data`.
 */
reset: Screen | null, };

export type TerminalClosed = { view: string, reason: string, };

export type MachineState = "connecting" | "connected" | "unreachable";

export type MachineStatus = { 
/**
 * The person's name for it (`plandeck --host NAME`).
 */
name: string, 
/**
 * Where ssh goes.
 */
ssh: string, 
/**
 * The person's ssh agent is forwarded there (they turned it on for this machine).
 */
forwardAgent: boolean, state: MachineState, 
/**
 * When it went into this state (RFC 3339, UTC): "unreachable since 14:02".
 */
since: string, 
/**
 * Why it is not connected, in words (ssh's, the remote's), when it is not.
 */
problem: IpcError | null, 
/**
 * When the next attempt to connect is (RFC 3339), while unreachable.
 */
nextTry: string | null, 
/**
 * The remote's Plandeck version, once it said hello.
 */
version: string | null, 
/**
 * When it last answered (RFC 3339): the age of the rows shown while unreachable.
 */
lastSeen: string | null, };

export const HIDDEN_RANGES: ReadonlyArray<readonly [number, number]> =
  // Characters a person cannot see (`plandeck_core::visible::HIDDEN`): marked `⟨U+XXXX⟩` when shown.
  [[0x00ad, 0x00ad], [0x034f, 0x034f], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f], [0x200b, 0x200f], [0x2028, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb], [0x13430, 0x1343f], [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff]];

export const SELECTOR_BASES: ReadonlyArray<readonly [number, number]> =
  // Characters after which one VS15/VS16 is an emoji's own (`plandeck_core::visible::SELECTOR_BASES`).
  [[0x0023, 0x0023], [0x002a, 0x002a], [0x0030, 0x0039], [0x00a9, 0x00a9], [0x00ae, 0x00ae], [0x203c, 0x3299], [0x1f000, 0x1faff]];

export const SHOWN_EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  // Texts and what `plandeck_core::visible::shown` makes of them (the UI's `shown` is tested against them).
  ["plain ✓ 日本\n\ttab", "plain ✓ 日本\n\ttab"],
  ["a\u{d}\nb\u{d}c\u{1b}[2Kd\u{1b}]52;c;eA==\u{7}\u{9b}\u{7f}\u{0}", "a\nb⟨U+000D⟩c⟨U+001B⟩[2Kd⟨U+001B⟩]52;c;eA==⟨U+0007⟩⟨U+009B⟩⟨U+007F⟩⟨U+0000⟩"],
  ["src/extra.rs\u{e0053}\u{e0074}\u{e0065}\u{e0070}", "src/extra.rs⟨U+E0053⟩⟨U+E0074⟩⟨U+E0065⟩⟨U+E0070⟩"],
  ["a\u{200b}b\u{200c}c\u{200d}d\u{200e}e\u{200f}f\u{2028}g\u{2060}h\u{feff}i\u{ad}j\u{61c}", "a⟨U+200B⟩b⟨U+200C⟩c⟨U+200D⟩d⟨U+200E⟩e⟨U+200F⟩f⟨U+2028⟩g⟨U+2060⟩h⟨U+FEFF⟩i⟨U+00AD⟩j⟨U+061C⟩"],
  ["I ❤\u{fe0f} it ✔\u{fe0f} 1\u{fe0f}⃣ 😀\u{fe0f}\u{fe01}\u{e0100}", "I ❤\u{fe0f} it ✔\u{fe0f} 1\u{fe0f}⃣ 😀\u{fe0f}⟨U+FE01⟩⟨U+E0100⟩"],
  ["a\u{fe0f} ❤\u{fe00} \u{fe0f} \u{2060}\u{fe0f} 🏴\u{e0067}\u{e007f}", "a⟨U+FE0F⟩ ❤⟨U+FE00⟩ ⟨U+FE0F⟩ ⟨U+2060⟩⟨U+FE0F⟩ 🏴⟨U+E0067⟩⟨U+E007F⟩"],
];

export type PhoneStatus = { 
/**
 * Turned on (the person's choice), whether or not it is served right now.
 */
on: boolean, 
/**
 * Served right now.
 */
running: boolean, 
/**
 * `ADDR:PORT` as typed; the certificate, key and name as given.
 */
listen: string | null, cert: string | null, key: string | null, name: string | null, 
/**
 * The page's address while served.
 */
url: string | null, 
/**
 * Who serves it ("plandeck serve --daemon (pid 123)").
 */
by: string | null, 
/**
 * Why it cannot be served (a port in use, a certificate gone).
 */
error: string | null, 
/**
 * It listens on every interface (said plainly).
 */
allInterfaces: boolean, 
/**
 * Served on this machine's Tailscale: only its user's own devices are answered (whois).
 */
tailscale: boolean, 
/**
 * Plan hooks wait while a paired phone was seen within this many minutes.
 */
waitMinutes: number, devices: Array<PhoneDevice>, };

export type PhoneDevice = { id: string, name: string, pairedAt: string, lastSeen: string | null, revoked: boolean, };

export type PhonePairing = { link: string, expires: string, qrSvg: string, };

export type TailscaleOffer = { 
/**
 * `tailscaled` answers, its state is Running, and it names this machine's address and
 * MagicDNS name: the page can be served there.
 */
running: boolean, 
/**
 * This machine's Tailscale address (IPv4 first), when running.
 */
ip: string | null, 
/**
 * Its MagicDNS name (the name in the link and of the certificate), when running.
 */
name: string | null, 
/**
 * Why not, in words (not running, no MagicDNS name, the LocalAPI not answering).
 */
reason: string | null, };
