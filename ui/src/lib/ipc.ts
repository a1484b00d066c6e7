// Typed calls into the Rust shell. Command names, argument names and types, results and events
// all come from Rust: ./bindings (the types) and ./commands (the IPC table), both generated. This
// file keeps the `ipc.*` facade the views call, and the event listener. Every command rejects with
// an IpcError `{kind, message}`: branch on `kind`, show `message`.

import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Agent, CommentAction, ErrorKind, GateDecision, IpcError, PlanDecision, StartRequest, StepStatus } from "./bindings";
import { commands, type EventName, type Events } from "./commands";

export type * from "./bindings";

export function isIpcError(e: unknown): e is IpcError {
  return typeof e === "object" && e !== null && "kind" in e && "message" in e;
}

/** Turns anything thrown by `invoke` into an IpcError. */
export function toIpcError(e: unknown): IpcError {
  if (isIpcError(e)) return e;
  return { kind: "internal" as ErrorKind, message: e instanceof Error ? e.message : String(e) };
}

/** Awaits a command, turning whatever it throws into an IpcError. */
async function call<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (e) {
    throw toIpcError(e);
  }
}

export const ipc = {
  getOverview: () => call(commands.getOverview()),
  /** Every agent Plandeck knows (id, name, capabilities): read once through lib/agents. */
  listAgents: () => call(commands.listAgents()),
  loadDemo: () => call(commands.loadDemo()),
  /** Back to the person's own folders from the demo workspace. */
  leaveDemo: () => call(commands.leaveDemo()),
  listPlans: () => call(commands.listPlans()),
  getPlan: (id: string) => call(commands.getPlan({ id })),
  searchPlans: (query: string) => call(commands.searchPlans({ query })),
  /** Opens the native folder picker in the shell and adds the folder picked (null: cancelled). */
  addPlanFolder: () => call(commands.addPlanFolder()),
  planDiff: (id: string, from: string | null, to: string | null) => call(commands.planDiff({ id, from, to })),
  planHistory: (id: string) => call(commands.planHistory({ id })),
  planVersion: (id: string, hash: string) => call(commands.planVersion({ id, hash })),
  decisionLog: () => call(commands.decisionLog()),
  /** One decision on the version read (`seenHash`): to the agent waiting for it in its terminal,
   * else recorded only; the outcome says where it went (`route`, `message`), whether the plan
   * file was written, and the id to undo a record-only decision with. */
  decidePlan: (id: string, seenHash: string, decision: PlanDecision, withComments = true) =>
    call(commands.decidePlan({ id, seenHash, decision, withComments })),
  /** Undoes a record-only decision (a revocation is appended; the log keeps both lines). */
  undoDecision: (id: string, decisionId: string) => call(commands.undoDecision({ id, decisionId })),
  /** Plans only the transcripts hold (file gone). The first call reads every transcript once. */
  transcriptPlans: () => call(commands.transcriptPlans()),
  recoveredPlan: (id: string) => call(commands.recoveredPlan({ id })),
  restorePlan: (id: string) => call(commands.restorePlan({ id })),
  /** Versions `a` and `b` of a recovered plan compared (numbered from 1, oldest first). */
  recoveredPlanDiff: (id: string, a: number, b: number) => call(commands.recoveredPlanDiff({ id, a, b })),
  /** How far the plan history's first scan is (then follow `history:progress`). */
  historyProgress: () => call(commands.historyProgress()),
  listComments: (id: string) => call(commands.listComments({ id })),
  /** `near`: a byte offset in the plan's source, to pick among repeated quotes. */
  addComment: (id: string, quote: string, text: string, near: number | null) =>
    call(commands.addComment({ id, quote, text, near })),
  changeComment: (commentId: string, action: CommentAction) => call(commands.changeComment({ commentId, action })),
  /** The open comments a decision on waiting request `id` carries. */
  requestComments: (id: string) => call(commands.requestComments({ id })),
  /** The plan's review as Markdown: title, each comment with its quote and status, the decision. */
  reviewMarkdown: (id: string) => call(commands.reviewMarkdown({ id })),
  listSessions: () => call(commands.listSessions()),
  /** Only the sessions named (a `sessions:changed`'s ids); one that is gone is not returned. */
  getSessions: (ids: string[]) => call(commands.getSessions({ ids })),
  /** How far the background load of the session index is (also the `sessions:progress` event). */
  sessionIndexProgress: () => call(commands.sessionIndexProgress()),
  listWorktrees: () => call(commands.listWorktrees()),
  /** Worktree commands take the ids of the listing, never paths. */
  keepWorktree: (id: string) => call(commands.keepWorktree({ id })),
  /** Forgets a Keep (nothing on disk changes). */
  unkeepWorktree: (id: string) => call(commands.unkeepWorktree({ id })),
  /** The changed files (status in words) and unmerged commits behind a row's counts. */
  worktreeDetails: (id: string) => call(commands.worktreeDetails({ id })),
  /** Removes after a native confirmation dialog showing what it does and what would be lost;
   * refused as a `conflict` when the worktree changed since the dialog. */
  removeWorktree: (id: string) => call(commands.removeWorktree({ id })),
  removeCleanWorktrees: (repoId: string) => call(commands.removeCleanWorktrees({ repoId })),
  listPending: () => call(commands.listPending()),
  /** Claude Code agent teams: each lead's teammates, with where their plans stand. */
  listTeams: () => call(commands.listTeams()),
  /** Delivers a decision to the waiting agent (its hook, or the approval card in its tmux pane),
   * with the plan's open comments (after the feedback, or as "Reviewer notes") unless
   * `withComments` is false. */
  decideRequest: (id: string, decision: GateDecision, withComments = true, seenHash: string | null = null, option: string | null = null) =>
    call(commands.decideRequest({ id, decision, withComments, seenHash, ...(option === null ? {} : { option }) })),
  hookStatus: (agent: Agent) => call(commands.hookStatus({ agent })),
  /** Installs/uninstalls exactly the change the window showed: `token` names it
   * (HookPreview.token), and a settings file that changed since is refused (kind "conflict"). */
  setHook: (agent: Agent, installed: boolean, token: string) => call(commands.setHook({ agent, installed, token })),
  /** Claude Code's Stop hook (verification): its status and the diff of toggling it. */
  stopHookStatus: () => call(commands.stopHookStatus()),
  /** Installs/uninstalls the Stop hook: the change `token` names, as `setHook`. */
  setStopHook: (installed: boolean, token: string) => call(commands.setStopHook({ installed, token })),
  /** The teammate gate of Claude Code agent teams (opt-in): its status and the diff of toggling it. */
  teamHookStatus: () => call(commands.teamHookStatus()),
  /** Installs/uninstalls the teammate gate: the change `token` names, as `setHook`. */
  setTeamHook: (installed: boolean, token: string) => call(commands.setTeamHook({ installed, token })),
  /** The shell opens the native folder picker; null when cancelled. No path crosses from here. */
  addRepo: () => call(commands.addRepo()),
  restoreWorktree: (repoId: string, archiveRef: string) => call(commands.restoreWorktree({ repoId, archiveRef })),
  // Verify: the approved plan against what the agent did (by plan id).
  verifyReport: (id: string) => call(commands.verifyReport({ id })),
  /** One changed file of the report, from the base to the worktree now. */
  verifyFileDiff: (id: string, path: string) => call(commands.verifyFileDiff({ id, path })),
  setStepOverride: (id: string, index: number, status: StepStatus, note: string) =>
    call(commands.setStepOverride({ id, index, status, note })),
  clearStepOverride: (id: string, index: number) => call(commands.clearStepOverride({ id, index })),
  /** The text "Send report to agent" would type (show it first). */
  verifyReportText: (id: string) => call(commands.verifyReportText({ id })),
  /** Types `shown` into the plan's live Claude Code session if it is still the report (else
   * `conflict`); refused (`refused`, `notFound`) with the reason when the pane is not verified. */
  sendVerifyReport: (id: string, shown: string) => call(commands.sendVerifyReport({ id, shown })),
  // Session control (core::control): start an agent in tmux, steer a running one.
  /** The shell's native folder picker for a repository to start in; null when cancelled. */
  pickRepo: () => call(commands.pickRepo()),
  /** Starts an agent as asked (a new worktree, plan mode, a first prompt) in the person's tmux. */
  startSession: (request: StartRequest) => call(commands.startSession({ request })),
  /** Typed and submitted only while the agent waits with an empty input box (else `refused`). */
  sendToAgent: (id: string, text: string) => call(commands.sendToAgent({ id, text })),
  /** The agent's own interrupt key (Esc); the window confirms first. */
  interruptSession: (id: string) => call(commands.interruptSession({ id })),
  /** What stopping would end (listed first); `stopSession` takes its token. */
  stopPreview: (id: string) => call(commands.stopPreview({ id })),
  /** Ends what the preview listed; `conflict` when it changed since. */
  stopSession: (id: string, token: string) => call(commands.stopSession({ id, token })),
  resumeSession: (id: string) => call(commands.resumeSession({ id })),
  openInTerminal: (id: string) => call(commands.openInTerminal({ id })),
  // Machines (`plandeck hosts`): ssh destinations are checked by core; nothing here runs ssh.
  listMachines: () => call(commands.listMachines()),
  addMachine: (name: string, ssh: string, forwardAgent = false) =>
    call(commands.addMachine({ name, ssh, forwardAgent })),
  removeMachine: (name: string) => call(commands.removeMachine({ name })),
  /** Settings → Phone: on or off, where, who serves it, the paired devices. */
  phoneStatus: () => call(commands.phoneStatus()),
  /** The shell asks the person natively (naming the address and certificate) before it turns
   * the page on; refused when not confirmed. */
  phoneOn: (listen: string, cert: string, key: string, name: string | null, waitMinutes: number) =>
    call(commands.phoneOn({ listen, cert, key, name, waitMinutes })),
  /** Whether this machine's Tailscale can serve the page (its address and name), or why not. */
  phoneTailscale: () => call(commands.phoneTailscale()),
  /** On this machine's Tailscale at `port`, once the person confirmed it natively (the address
   * and name tailscaled gives); refused when not confirmed. */
  phoneOnTailscale: (port: number, waitMinutes: number) => call(commands.phoneOnTailscale({ port, waitMinutes })),
  /** The native file picker for the certificate (`cert`) or its key (`key`); null: cancelled. */
  phonePickFile: (what: "cert" | "key") => call(commands.phonePickFile({ what })),
  phoneOff: () => call(commands.phoneOff()),
  /** A one-time pairing link (valid minutes, used once) with its QR code drawn in Rust. */
  phonePair: () => call(commands.phonePair()),
  phoneRevoke: (id: string) => call(commands.phoneRevoke({ id })),
  reconnectMachine: (name: string) => call(commands.reconnectMachine({ name })),
  // Live terminal views of sessions' tmux panes (output comes as `terminal:output`).
  /** Opens a read-only view of the session's pane: its size and the screen to start from. */
  openTerminal: (sessionId: string) => call(commands.openTerminal({ sessionId })),
  closeTerminal: (view: string) => call(commands.closeTerminal({ view })),
  /** Checks the pane is the agent's, then lets `typeIntoTerminal` type into it. */
  takeTerminalControl: (view: string) => call(commands.takeTerminalControl({ view })),
  releaseTerminalControl: (view: string) => call(commands.releaseTerminalControl({ view })),
  /** What the person's keys made (escape sequences included), at most 4096 bytes. */
  typeIntoTerminal: (view: string, data: string) => call(commands.typeIntoTerminal({ view, data })),
};

export type { EventName, Events } from "./commands";

/** Like `on`, resolving once the listener is registered: events sent after that are heard. */
export async function onNow<N extends EventName>(name: N, handler: (payload: Events[N]) => void): Promise<() => void> {
  const unlisten = await listen<Events[N]>(name, (e) => handler(e.payload));
  return unlisten;
}

/** Listens to `name` until the returned function is called (call it when a component is destroyed). */
export function on<N extends EventName>(name: N, handler: (payload: Events[N]) => void): () => void {
  let unlisten: UnlistenFn | undefined;
  let stopped = false;
  listen<Events[N]>(name, (e) => handler(e.payload))
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
