// The choices of each agent's approval card, in the agent's own words, as core has them
// (`core::agents::<agent>::CARD`, listed by `list_agents`): the queue's buttons use them, so the
// window and the terminal say the same.
import type { Agent, CardChoice } from "./bindings";
import { agents } from "./agents.svelte";

export type Choice = { label: string; title: string };
export type CardChoices = { auto: Choice; manual: Choice; feedback: Choice };

const PLAIN: CardChoices = {
  auto: { label: "Approve", title: "Approve; the agent accepts its edits itself" },
  manual: { label: "Approve, review edits", title: "Approve; you approve each edit" },
  feedback: { label: "Reject…", title: "Reject with feedback" },
};

/** The card's choices for `agent`, in its words (plain words for an agent without a card, or
 * before the agents are loaded). */
export function choicesOf(agent: Agent): CardChoices {
  const info = agents.list.find((a) => a.id === agent);
  const card = info?.card;
  if (!info || !card) return PLAIN;
  const of = (c: CardChoice, what: string, more = ""): Choice => ({
    label: c.label + more,
    title: `${what}: choice ${c.key} of ${info.name}'s card`,
  });
  // The feedback choice opens a field for the feedback first.
  return { auto: of(card.approveAuto, "Approve"), manual: of(card.approveManual, "Approve"), feedback: of(card.feedback, "Reject with feedback", "…") };
}
