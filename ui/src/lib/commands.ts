// Generated from the IPC table (crates/plandeck-core/src/ipc_table.rs) by
// `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`. Do not edit by hand: a test fails when
// this file is stale. Call commands through `ipc` in ./ipc.ts.

import { invoke } from "@tauri-apps/api/core";
import type { AcpAgentChoice, AcpChanged, AcpCommand, AcpSession, AcpStartAsked, Agent, AgentInfo, CommentAction, CommentsChanged, Decision, DecisionOutcome, GateChanged, GateDecision, GateRequest, HistoryChanged, HookPreview, IndexProgress, InstallReport, MachineStatus, Overview, PhonePairing, PhoneStatus, PlacedComment, PlanDecision, PlanDiff, PlanDocument, PlanHistory, PlanListing, PlanOutcome, PlansChanged, ProcessLine, RecoveredPlan, RecoveredPlanView, RemoveOutcome, Restored, RootsChanged, ScanProgress, SearchHit, SessionSummary, SessionsChanged, StartRequest, Started, StepOverride, StepStatus, StopOutcome, StopPreview, TailscaleOffer, Team, TerminalClosed, TerminalOutput, TerminalView, VerifyReport, WorktreeDetails, WorktreeSize, WorktreeSummary, WorktreesChanged } from "./bindings";

/** Every command: its arguments (as sent, camelCased) and its result. */
export type Commands = {
  get_overview: { args: {}; returns: Overview };
  list_agents: { args: {}; returns: Array<AgentInfo> };
  load_demo: { args: {}; returns: Overview };
  leave_demo: { args: {}; returns: Overview };
  list_plans: { args: {}; returns: PlanListing };
  get_plan: { args: { id: string }; returns: PlanDocument };
  search_plans: { args: { query: string }; returns: Array<SearchHit> };
  add_plan_folder: { args: {}; returns: string | null };
  plan_diff: { args: { id: string; from?: string | null; to?: string | null }; returns: PlanDiff };
  plan_history: { args: { id: string }; returns: PlanHistory };
  plan_version: { args: { id: string; hash: string }; returns: string };
  decision_log: { args: {}; returns: Array<Decision> };
  decide_plan: { args: { id: string; seenHash: string; decision: PlanDecision; withComments?: boolean | null }; returns: PlanOutcome };
  undo_decision: { args: { id: string; decisionId: string }; returns: Decision };
  transcript_plans: { args: {}; returns: Array<RecoveredPlan> };
  recovered_plan: { args: { id: string }; returns: RecoveredPlanView };
  restore_plan: { args: { id: string }; returns: Restored };
  recovered_plan_diff: { args: { id: string; a: number; b: number }; returns: PlanDiff };
  history_progress: { args: {}; returns: ScanProgress };
  list_comments: { args: { id: string }; returns: Array<PlacedComment> };
  add_comment: { args: { id: string; quote: string; text: string; near?: number | null }; returns: PlacedComment };
  change_comment: { args: { commentId: string; action: CommentAction }; returns: null };
  review_markdown: { args: { id: string }; returns: string };
  list_sessions: { args: {}; returns: Array<SessionSummary> };
  get_sessions: { args: { ids: Array<string> }; returns: Array<SessionSummary> };
  session_index_progress: { args: {}; returns: IndexProgress };
  list_acp_sessions: { args: {}; returns: Array<AcpSession> };
  acp_session: { args: { id: string }; returns: AcpSession };
  acp_stop_preview: { args: { id: string }; returns: Array<ProcessLine> };
  steer_acp_session: { args: { id: string; command: AcpCommand }; returns: null };
  open_terminal: { args: { sessionId: string }; returns: TerminalView };
  close_terminal: { args: { view: string }; returns: null };
  take_terminal_control: { args: { view: string }; returns: null };
  release_terminal_control: { args: { view: string }; returns: null };
  type_into_terminal: { args: { view: string; data: string }; returns: null };
  list_worktrees: { args: {}; returns: Array<WorktreeSummary> };
  keep_worktree: { args: { id: string }; returns: null };
  unkeep_worktree: { args: { id: string }; returns: null };
  worktree_details: { args: { id: string }; returns: WorktreeDetails };
  remove_worktree: { args: { id: string }; returns: RemoveOutcome };
  remove_clean_worktrees: { args: { repoId: string }; returns: Array<string> };
  restore_worktree: { args: { repoId: string; archiveRef: string }; returns: string };
  list_pending: { args: {}; returns: Array<GateRequest> };
  decide_request: { args: { id: string; decision: GateDecision; withComments?: boolean | null; seenHash?: string | null; option?: string | null }; returns: DecisionOutcome };
  request_comments: { args: { id: string }; returns: Array<PlacedComment> };
  list_teams: { args: {}; returns: Array<Team> };
  hook_status: { args: { agent: Agent }; returns: HookPreview };
  set_hook: { args: { agent: Agent; installed: boolean; token: string }; returns: InstallReport };
  stop_hook_status: { args: {}; returns: HookPreview };
  set_stop_hook: { args: { installed: boolean; token: string }; returns: InstallReport };
  team_hook_status: { args: {}; returns: HookPreview };
  set_team_hook: { args: { installed: boolean; token: string }; returns: InstallReport };
  add_repo: { args: {}; returns: string | null };
  verify_report: { args: { id: string }; returns: VerifyReport };
  verify_file_diff: { args: { id: string; path: string }; returns: PlanDiff };
  set_step_override: { args: { id: string; index: number; status: StepStatus; note: string }; returns: StepOverride };
  clear_step_override: { args: { id: string; index: number }; returns: boolean };
  verify_report_text: { args: { id: string }; returns: string };
  send_verify_report: { args: { id: string; shown: string }; returns: string };
  pick_repo: { args: {}; returns: string | null };
  start_session: { args: { request: StartRequest }; returns: Started };
  acp_agents: { args: {}; returns: Array<AcpAgentChoice> };
  start_acp_session: { args: { agent: string; repo: string; worktree?: string | null; base?: string | null; plan: boolean; prompt?: string | null }; returns: AcpStartAsked };
  send_to_agent: { args: { id: string; text: string }; returns: string };
  interrupt_session: { args: { id: string }; returns: string };
  stop_preview: { args: { id: string }; returns: StopPreview };
  stop_session: { args: { id: string; token: string }; returns: StopOutcome };
  resume_session: { args: { id: string }; returns: Started };
  open_in_terminal: { args: { id: string }; returns: string };
  list_machines: { args: {}; returns: Array<MachineStatus> };
  add_machine: { args: { name: string; ssh: string; forwardAgent: boolean }; returns: MachineStatus };
  remove_machine: { args: { name: string }; returns: null };
  reconnect_machine: { args: { name: string }; returns: null };
  phone_status: { args: {}; returns: PhoneStatus };
  phone_on: { args: { listen: string; cert: string; key: string; name?: string | null; waitMinutes: number }; returns: PhoneStatus };
  phone_tailscale: { args: {}; returns: TailscaleOffer };
  phone_on_tailscale: { args: { port: number; waitMinutes: number }; returns: PhoneStatus };
  phone_pick_file: { args: { what: string }; returns: string | null };
  phone_off: { args: {}; returns: PhoneStatus };
  phone_pair: { args: {}; returns: PhonePairing };
  phone_revoke: { args: { id: string }; returns: PhoneStatus };
};

/** Typed `invoke` of each command (rejects with `{kind, message}`). */
export const commands = {
  getOverview: () => invoke<Overview>("get_overview"),
  listAgents: () => invoke<Array<AgentInfo>>("list_agents"),
  loadDemo: () => invoke<Overview>("load_demo"),
  leaveDemo: () => invoke<Overview>("leave_demo"),
  listPlans: () => invoke<PlanListing>("list_plans"),
  getPlan: (args: { id: string }) => invoke<PlanDocument>("get_plan", args),
  searchPlans: (args: { query: string }) => invoke<Array<SearchHit>>("search_plans", args),
  addPlanFolder: () => invoke<string | null>("add_plan_folder"),
  planDiff: (args: { id: string; from?: string | null; to?: string | null }) => invoke<PlanDiff>("plan_diff", args),
  planHistory: (args: { id: string }) => invoke<PlanHistory>("plan_history", args),
  planVersion: (args: { id: string; hash: string }) => invoke<string>("plan_version", args),
  decisionLog: () => invoke<Array<Decision>>("decision_log"),
  decidePlan: (args: { id: string; seenHash: string; decision: PlanDecision; withComments?: boolean | null }) => invoke<PlanOutcome>("decide_plan", args),
  undoDecision: (args: { id: string; decisionId: string }) => invoke<Decision>("undo_decision", args),
  transcriptPlans: () => invoke<Array<RecoveredPlan>>("transcript_plans"),
  recoveredPlan: (args: { id: string }) => invoke<RecoveredPlanView>("recovered_plan", args),
  restorePlan: (args: { id: string }) => invoke<Restored>("restore_plan", args),
  recoveredPlanDiff: (args: { id: string; a: number; b: number }) => invoke<PlanDiff>("recovered_plan_diff", args),
  historyProgress: () => invoke<ScanProgress>("history_progress"),
  listComments: (args: { id: string }) => invoke<Array<PlacedComment>>("list_comments", args),
  addComment: (args: { id: string; quote: string; text: string; near?: number | null }) => invoke<PlacedComment>("add_comment", args),
  changeComment: (args: { commentId: string; action: CommentAction }) => invoke<null>("change_comment", args),
  reviewMarkdown: (args: { id: string }) => invoke<string>("review_markdown", args),
  listSessions: () => invoke<Array<SessionSummary>>("list_sessions"),
  getSessions: (args: { ids: Array<string> }) => invoke<Array<SessionSummary>>("get_sessions", args),
  sessionIndexProgress: () => invoke<IndexProgress>("session_index_progress"),
  listAcpSessions: () => invoke<Array<AcpSession>>("list_acp_sessions"),
  acpSession: (args: { id: string }) => invoke<AcpSession>("acp_session", args),
  acpStopPreview: (args: { id: string }) => invoke<Array<ProcessLine>>("acp_stop_preview", args),
  steerAcpSession: (args: { id: string; command: AcpCommand }) => invoke<null>("steer_acp_session", args),
  openTerminal: (args: { sessionId: string }) => invoke<TerminalView>("open_terminal", args),
  closeTerminal: (args: { view: string }) => invoke<null>("close_terminal", args),
  takeTerminalControl: (args: { view: string }) => invoke<null>("take_terminal_control", args),
  releaseTerminalControl: (args: { view: string }) => invoke<null>("release_terminal_control", args),
  typeIntoTerminal: (args: { view: string; data: string }) => invoke<null>("type_into_terminal", args),
  listWorktrees: () => invoke<Array<WorktreeSummary>>("list_worktrees"),
  keepWorktree: (args: { id: string }) => invoke<null>("keep_worktree", args),
  unkeepWorktree: (args: { id: string }) => invoke<null>("unkeep_worktree", args),
  worktreeDetails: (args: { id: string }) => invoke<WorktreeDetails>("worktree_details", args),
  removeWorktree: (args: { id: string }) => invoke<RemoveOutcome>("remove_worktree", args),
  removeCleanWorktrees: (args: { repoId: string }) => invoke<Array<string>>("remove_clean_worktrees", args),
  restoreWorktree: (args: { repoId: string; archiveRef: string }) => invoke<string>("restore_worktree", args),
  listPending: () => invoke<Array<GateRequest>>("list_pending"),
  decideRequest: (args: { id: string; decision: GateDecision; withComments?: boolean | null; seenHash?: string | null; option?: string | null }) => invoke<DecisionOutcome>("decide_request", args),
  requestComments: (args: { id: string }) => invoke<Array<PlacedComment>>("request_comments", args),
  listTeams: () => invoke<Array<Team>>("list_teams"),
  hookStatus: (args: { agent: Agent }) => invoke<HookPreview>("hook_status", args),
  setHook: (args: { agent: Agent; installed: boolean; token: string }) => invoke<InstallReport>("set_hook", args),
  stopHookStatus: () => invoke<HookPreview>("stop_hook_status"),
  setStopHook: (args: { installed: boolean; token: string }) => invoke<InstallReport>("set_stop_hook", args),
  teamHookStatus: () => invoke<HookPreview>("team_hook_status"),
  setTeamHook: (args: { installed: boolean; token: string }) => invoke<InstallReport>("set_team_hook", args),
  addRepo: () => invoke<string | null>("add_repo"),
  verifyReport: (args: { id: string }) => invoke<VerifyReport>("verify_report", args),
  verifyFileDiff: (args: { id: string; path: string }) => invoke<PlanDiff>("verify_file_diff", args),
  setStepOverride: (args: { id: string; index: number; status: StepStatus; note: string }) => invoke<StepOverride>("set_step_override", args),
  clearStepOverride: (args: { id: string; index: number }) => invoke<boolean>("clear_step_override", args),
  verifyReportText: (args: { id: string }) => invoke<string>("verify_report_text", args),
  sendVerifyReport: (args: { id: string; shown: string }) => invoke<string>("send_verify_report", args),
  pickRepo: () => invoke<string | null>("pick_repo"),
  startSession: (args: { request: StartRequest }) => invoke<Started>("start_session", args),
  acpAgents: () => invoke<Array<AcpAgentChoice>>("acp_agents"),
  startAcpSession: (args: { agent: string; repo: string; worktree?: string | null; base?: string | null; plan: boolean; prompt?: string | null }) => invoke<AcpStartAsked>("start_acp_session", args),
  sendToAgent: (args: { id: string; text: string }) => invoke<string>("send_to_agent", args),
  interruptSession: (args: { id: string }) => invoke<string>("interrupt_session", args),
  stopPreview: (args: { id: string }) => invoke<StopPreview>("stop_preview", args),
  stopSession: (args: { id: string; token: string }) => invoke<StopOutcome>("stop_session", args),
  resumeSession: (args: { id: string }) => invoke<Started>("resume_session", args),
  openInTerminal: (args: { id: string }) => invoke<string>("open_in_terminal", args),
  listMachines: () => invoke<Array<MachineStatus>>("list_machines"),
  addMachine: (args: { name: string; ssh: string; forwardAgent: boolean }) => invoke<MachineStatus>("add_machine", args),
  removeMachine: (args: { name: string }) => invoke<null>("remove_machine", args),
  reconnectMachine: (args: { name: string }) => invoke<null>("reconnect_machine", args),
  phoneStatus: () => invoke<PhoneStatus>("phone_status"),
  phoneOn: (args: { listen: string; cert: string; key: string; name?: string | null; waitMinutes: number }) => invoke<PhoneStatus>("phone_on", args),
  phoneTailscale: () => invoke<TailscaleOffer>("phone_tailscale"),
  phoneOnTailscale: (args: { port: number; waitMinutes: number }) => invoke<PhoneStatus>("phone_on_tailscale", args),
  phonePickFile: (args: { what: string }) => invoke<string | null>("phone_pick_file", args),
  phoneOff: () => invoke<PhoneStatus>("phone_off"),
  phonePair: () => invoke<PhonePairing>("phone_pair"),
  phoneRevoke: (args: { id: string }) => invoke<PhoneStatus>("phone_revoke", args),
};

/** Every event the shell emits, with its payload. */
export type Events = {
  "app:roots-changed": RootsChanged;
  "plans:changed": PlansChanged;
  "sessions:changed": SessionsChanged;
  "sessions:progress": IndexProgress;
  "worktrees:changed": WorktreesChanged;
  "worktrees:updated": Array<WorktreeSummary>;
  "worktrees:size": WorktreeSize;
  "terminal:output": TerminalOutput;
  "terminal:closed": TerminalClosed;
  "gate:changed": GateChanged;
  "acp:changed": AcpChanged;
  "comments:changed": CommentsChanged;
  "history:progress": ScanProgress;
  "history:changed": HistoryChanged;
  "machines:changed": Array<MachineStatus>;
};

export type EventName = keyof Events;

/** The event names, for iteration. */
export const EVENT_NAMES: EventName[] = ["app:roots-changed", "plans:changed", "sessions:changed", "sessions:progress", "worktrees:changed", "worktrees:updated", "worktrees:size", "terminal:output", "terminal:closed", "gate:changed", "acp:changed", "comments:changed", "history:progress", "history:changed", "machines:changed"];
