// Data the component tests share (imported by *.test.ts only; never part of the app's bundle).
import type { AgentInfo, Capabilities, GateRequest, SessionSummary } from "./lib/bindings";

const can = (over: Partial<Capabilities>): Capabilities => ({ plans: false, sessions: true, gate: false, verify: true, stopHook: false, ...over });

/** The agents as core lists them (`list_agents`). */
export const agentList: AgentInfo[] = [
  {
    id: "claude",
    name: "Claude Code",
    capabilities: can({ plans: true, gate: true, stopHook: true }),
    card: {
      approveAuto: { key: 1, label: "Yes, and use auto mode" },
      approveManual: { key: 2, label: "Yes, manually approve edits" },
      feedback: { key: 3, label: "Tell Claude what to change" },
    },
  },
  {
    id: "gemini",
    name: "Gemini CLI",
    capabilities: can({ plans: true, gate: true }),
    card: {
      approveAuto: { key: 1, label: "Yes, automatically accept edits" },
      approveManual: { key: 2, label: "Yes, manually accept edits" },
      feedback: { key: 3, label: "Type your feedback" },
    },
  },
  { id: "codex", name: "Codex CLI", capabilities: can({}), card: null },
];

/** `agentList` and a fourth agent no view knows by name: lists made from core show it. */
export const withFourthAgent = (capabilities: Partial<Capabilities>): AgentInfo[] => [
  ...agentList,
  // Not one of today's ids: a view that spells its own list of agents does not show it.
  { id: "aider" as AgentInfo["id"], name: "Aider", capabilities: can(capabilities), card: null },
];

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
    doing: null,
    unreadableLines: 0,
    tasks: null,
    transcriptPath: null,
    reviewState: null,
    usage: null,
    ...over,
  }) as SessionSummary;

/** A request waiting in the gate, on this machine (`over` changes any field). */
export const gateRequest = (over: Partial<GateRequest> = {}): GateRequest => ({
  id: "req-1",
  machine: null,
  agent: "claude",
  sessionId: "fecae38a-0653-4970-8e6f-118f15e00ee0",
  cwd: "/home/dev/work/api",
  planPath: "/home/dev/.claude/plans/p.md",
  plan: "# Plan: add pagination\n\n1. cursor\n",
  toolUseId: "toolu_1",
  transcriptPath: null,
  transcriptOffset: 0,
  tmuxPane: "%3",
  tmuxSocket: null,
  waitingSince: new Date(Date.now() - 90_000).toISOString(),
  deadline: new Date(Date.now() + 600_000).toISOString(),
  hookPid: 1,
  hookStartTime: null,
  agentPid: null,
  agentStartTime: null,
  headless: false,
  throughHook: false,
  approvesThroughHook: false,
  team: null,
  teammate: null,
  leadSessionId: null,
  planRead: null,
  status: "waiting",
  closedAt: null,
  decision: null,
  decidedBy: null,
  planHash: "h-shown",
  kind: "plan",
  acp: null,
  ...over,
});

/** An ACP agent's tool permission waiting in the queue (issue 36). */
export const acpPermission = (over: Partial<GateRequest> = {}): GateRequest =>
  gateRequest({
    id: "acp-1",
    agent: "other",
    kind: "permission",
    plan: "",
    planPath: null,
    planHash: null,
    tmuxPane: null,
    acp: {
      agentName: "claude-acp",
      toolCallId: "c1",
      title: "Run <img src=x onerror=alert(1)> ls",
      toolKind: "execute",
      command: "rm -rf <b>/</b>",
      path: "/r/src/a.rs",
      diff: { path: "/r/src/a.rs", oldText: "old line\n", newText: "new <script>line</script>\n" },
      options: [
        { optionId: "always", name: "Always allow", kind: "allow_always" },
        { optionId: "once", name: "Allow once", kind: "allow_once" },
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ],
      chosen: null,
    },
    ...over,
  });
