// Typed calls into the Rust shell. Types come from ./bindings (generated from Rust); this file only
// names the commands and their argument shapes. Every command rejects with an IpcError
// `{kind, message}`: branch on `kind`, show `message`.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type {
  Decision,
  DecisionOutcome,
  ErrorKind,
  GateDecision,
  GateRequest,
  HookPreview,
  InstallReport,
  Agent,
  CommentAction,
  IpcError,
  PlacedComment,
  RecoveredPlan,
  RecoveredPlanView,
  Restored,
  Overview,
  PlanDiff,
  PlanDocument,
  PlanHistory,
  PlanListing,
  RemoveOutcome,
  SearchHit,
  SessionSummary,
  WorktreeSummary,
  IndexProgress,
} from "./bindings";

export type * from "./bindings";

export function isIpcError(e: unknown): e is IpcError {
  return typeof e === "object" && e !== null && "kind" in e && "message" in e;
}

/** Turns anything thrown by `invoke` into an IpcError. */
export function toIpcError(e: unknown): IpcError {
  if (isIpcError(e)) return e;
  return { kind: "internal" as ErrorKind, message: e instanceof Error ? e.message : String(e) };
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    throw toIpcError(e);
  }
}

export const ipc = {
  getOverview: () => call<Overview>("get_overview"),
  loadDemo: () => call<Overview>("load_demo"),
  listPlans: () => call<PlanListing>("list_plans"),
  getPlan: (id: string) => call<PlanDocument>("get_plan", { id }),
  searchPlans: (query: string) => call<SearchHit[]>("search_plans", { query }),
  /** Opens the native folder picker in the shell and adds the folder picked (null: cancelled). */
  addPlanFolder: () => call<string | null>("add_plan_folder"),
  planDiff: (id: string, from: string | null, to: string | null) => call<PlanDiff>("plan_diff", { id, from, to }),
  planHistory: (id: string) => call<PlanHistory>("plan_history", { id }),
  planVersion: (id: string, hash: string) => call<string>("plan_version", { id, hash }),
  /** Approves the version read (`startedFrom`, else `planChanged`); with `edited`, writes it to
   * the plan file first if the file still holds `startedFrom` (else `conflict`). */
  approvePlan: (id: string, edited: string | null, startedFrom: string | null, mode: string | null) =>
    call<Decision>("approve_plan", { id, edited, startedFrom, mode }),
  /** Rejects the version read (`seenHash`; `planChanged` when the file holds another now). */
  rejectPlan: (id: string, feedback: string, seenHash: string | null) =>
    call<Decision>("reject_plan", { id, feedback, seenHash }),
  decisionLog: () => call<Decision[]>("decision_log"),
  /** Plans only the transcripts hold (file gone). The first call reads every transcript once. */
  transcriptPlans: () => call<RecoveredPlan[]>("transcript_plans"),
  recoveredPlan: (id: string) => call<RecoveredPlanView>("recovered_plan", { id }),
  restorePlan: (id: string) => call<Restored>("restore_plan", { id }),
  listComments: (id: string) => call<PlacedComment[]>("list_comments", { id }),
  /** `near`: a byte offset in the plan's source, to pick among repeated quotes. */
  addComment: (id: string, quote: string, text: string, near: number | null) =>
    call<PlacedComment>("add_comment", { id, quote, text, near }),
  changeComment: (commentId: string, action: CommentAction) => call<void>("change_comment", { commentId, action }),
  listSessions: () => call<SessionSummary[]>("list_sessions"),
  /** How far the background load of the session index is (also the `sessions:progress` event). */
  sessionIndexProgress: () => call<IndexProgress>("session_index_progress"),
  listWorktrees: () => call<WorktreeSummary[]>("list_worktrees"),
  /** Worktree commands take the ids of the listing, never paths. */
  keepWorktree: (id: string) => call<void>("keep_worktree", { id }),
  /** Removes after a native confirmation dialog showing what it does and what would be lost;
   * refused as a `conflict` when the worktree changed since the dialog. */
  removeWorktree: (id: string) => call<RemoveOutcome>("remove_worktree", { id }),
  removeCleanWorktrees: (repoId: string) => call<string[]>("remove_clean_worktrees", { repoId }),
  listPending: () => call<GateRequest[]>("list_pending"),
  /** Delivers a decision to the waiting agent (its hook, or the approval card in its tmux pane). */
  decideRequest: (id: string, decision: GateDecision) => call<DecisionOutcome>("decide_request", { id, decision }),
  hookStatus: (agent: Agent) => call<HookPreview>("hook_status", { agent }),
  /** Installs/uninstalls after a native confirmation showing the diff; `token` names the change
   * shown (HookPreview.token): a settings file that changed since is refused (kind "conflict"). */
  setHook: (agent: Agent, installed: boolean, token: string) => call<InstallReport>("set_hook", { agent, installed, token }),
  /** The shell opens the native folder picker; null when cancelled. No path crosses from here. */
  addRepo: () => call<string | null>("add_repo"),
  restoreWorktree: (repoId: string, archiveRef: string) => call<string>("restore_worktree", { repoId, archiveRef }),
};

/** The events the shell emits; payloads are typed by their bindings. */
export type EventName = "app:roots-changed" | "plans:changed" | "sessions:changed" | "worktrees:changed" | "gate:changed" | "sessions:progress";

/** Listens to `name` until the returned function is called (call it when a component is destroyed). */
export function on<T>(name: EventName, handler: (payload: T) => void): () => void {
  let unlisten: UnlistenFn | undefined;
  let stopped = false;
  listen<T>(name, (e) => handler(e.payload))
    .then((u) => {
      if (stopped) u();
      else unlisten = u;
    })
    .catch((e) => console.warn(`cannot listen to ${name}`, e));
  return () => {
    stopped = true;
    unlisten?.();
  };
}
