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
project: string | null, sessionId: string | null, gitBranch: string | null, state: ReviewState, 
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
subagentId: string | null, };

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
headings: Array<Heading>, };

export type SearchHit = { id: string, title: string, snippet: string, };

export type PlansChanged = { paths: Array<string>, };

export type Heading = { id: string, level: number, text: string, };

export type Rendered = { html: string, headings: Array<Heading>, };

export type ReviewState = "unreviewed" | "approved" | "changed" | "rejected";
