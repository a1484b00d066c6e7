// The agents Plandeck knows, as core lists them (id, the name a person reads, what Plandeck can do
// with each): asked once, then every view makes its agent lists (filters, hooks) from it. No view
// spells an agent's list of its own.

import { ipc, type AgentInfo } from "./ipc";

const known = $state<{ list: AgentInfo[] }>({ list: [] });
let asked: Promise<AgentInfo[]> | null = null;

/** The agents, once they are loaded (empty before). */
export const agents = {
  get list(): AgentInfo[] {
    return known.list;
  },
};

/** The name a person reads for `id`: core's, else (not loaded yet, or plans from a folder the
 * person added) "Other" or the id itself. */
export function agentName(id: string): string {
  return known.list.find((a) => a.id === id)?.name ?? (id === "other" ? "Other" : id);
}

/** Asks core for the agents the first time it is called; later calls share that answer. A failed
 * call is asked again next time. */
export function loadAgents(): Promise<AgentInfo[]> {
  asked ??= ipc.listAgents().then(
    (list) => {
      known.list = Array.isArray(list) ? list : [];
      return known.list;
    },
    () => {
      asked = null;
      return known.list;
    },
  );
  return asked;
}

/** Forgets the answer, so the next `loadAgents` asks again (tests start each case afresh). */
export function forgetAgents() {
  asked = null;
  known.list = [];
}
