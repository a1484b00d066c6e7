// The choices of each agent's approval card, in the agent's own words (tests/fixtures/*/README.md,
// docs/agents.md): the queue's buttons use them, so the window and the terminal say the same.
import type { Agent } from "./bindings";

export type Choice = { label: string; title: string };
export type CardChoices = { auto: Choice; manual: Choice; feedback: Choice };

const CARDS: Partial<Record<Agent, CardChoices>> = {
  claude: {
    auto: { label: "Yes, and use auto mode", title: "Approve: choice 1 of Claude Code's card" },
    manual: { label: "Yes, manually approve edits", title: "Approve: choice 2 of Claude Code's card" },
    feedback: { label: "Tell Claude what to change…", title: "Reject with feedback: choice 3 of Claude Code's card" },
  },
  gemini: {
    auto: { label: "Yes, automatically accept edits", title: "Approve: choice 1 of Gemini CLI's card" },
    manual: { label: "Yes, manually accept edits", title: "Approve: choice 2 of Gemini CLI's card" },
    feedback: { label: "Type your feedback…", title: "Reject with feedback: choice 3 of Gemini CLI's card" },
  },
};

const PLAIN: CardChoices = {
  auto: { label: "Approve", title: "Approve; the agent accepts its edits itself" },
  manual: { label: "Approve, review edits", title: "Approve; you approve each edit" },
  feedback: { label: "Reject…", title: "Reject with feedback" },
};

/** The card's choices for `agent`, in its words (plain words for an agent without a card). */
export function choicesOf(agent: Agent): CardChoices {
  return CARDS[agent] ?? PLAIN;
}
