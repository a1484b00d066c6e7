// Claude Code agent teams, as core lists them (`list_teams`): the Sessions view nests each lead's
// teammates in the lead's card, and shows a teammate in a pane of its own (a session of its own)
// there rather than as a card beside its lead.

import { SvelteSet } from "svelte/reactivity";
import { ipc } from "./ipc";
import type { Team } from "./bindings";

const known = $state<{ list: Team[] }>({ list: [] });

/** The sessions of teammates in panes of their own: shown nested under their lead. */
export const teamSessions = new SvelteSet<string>();

/** Reads the teams again (a failed read keeps what was shown). */
export async function loadTeams(): Promise<void> {
  try {
    const list = await ipc.listTeams();
    known.list = Array.isArray(list) ? list : [];
  } catch {
    return;
  }
  const own = new Set(known.list.flatMap((t) => t.members.map((m) => m.sessionId).filter((id): id is string => !!id && id !== t.leadSessionId)));
  for (const id of [...teamSessions]) if (!own.has(id)) teamSessions.delete(id);
  for (const id of own) teamSessions.add(id);
}

/** The teams `sessionId` leads. */
export function teamsLedBy(sessionId: string): Team[] {
  return known.list.filter((t) => t.leadSessionId === sessionId);
}
