// Pieces every board is built from: fact lists, seat chips, card backs, the outcome banner.

import { el, plural, scalar, words } from "./dom.js";

// The places of a dragons-gambit grid: slots 0 and 1 are the far row, 2 and 3 the near row.
const SLOT_NAMES = ["far left", "far right", "near left", "near right"];

/** A dragons-gambit slot by its place in the grid ("near left"); an unknown slot by its number. */
export function slotName(slot) {
  return SLOT_NAMES[slot] || `slot ${slot}`;
}

// A labelled list of facts: [["label", value], ...]; an undefined value leaves its row out.
export function facts(pairs) {
  const list = el("dl", { class: "facts" });
  for (const [label, value] of pairs) {
    if (value === undefined) continue;
    list.append(el("dt", {}, label), el("dd", {}, value instanceof Node ? value : scalar(value)));
  }
  return list;
}

// A seat name as a coloured chip (its colour is its place among `seats`).
export function seatChip(seat, seats) {
  const index = Math.max(0, (seats || []).indexOf(seat));
  return el("span", { class: `seat-chip seat-${index}` }, seat);
}

// A face-down card (hidden from this viewer), with an optional label on its back.
export function cardBack(label = "", title = "hidden") {
  return el("span", { class: "card-back", title }, label);
}

// `count` face-down cards, drawn one by one up to `cap` and then summed up ("+7").
export function cardBacks(count, cap = 8) {
  const n = Math.max(0, Number(count) || 0);
  const shown = Array.from({ length: Math.min(n, cap) }, () => cardBack());
  if (n > cap) shown.push(el("span", { class: "muted more" }, `+${n - cap}`));
  return shown;
}

// Whether this view is of a finished match (no turn, no pending claim: the outcome instead).
export function isFinished(view) {
  return Boolean(view && (view.status === "finished" || view.outcome));
}

// The winners of a finished view's outcome (empty for a draw or no outcome).
export function winnersOf(view) {
  return ((view && view.outcome && view.outcome.winners) || []).slice();
}

// One sentence for an outcome: "south wins (captures)", "p1 and p3 win", "a draw (turn limit)".
export function outcomeText(outcome) {
  if (!outcome) return "—";
  const winners = Array.isArray(outcome.winners) ? outcome.winners : [];
  const who = winners.length === 0 ? "a draw"
    : winners.length === 1 ? `${winners[0]} wins`
      : `${winners.slice(0, -1).join(", ")} and ${winners.at(-1)} win`;
  return outcome.reason ? `${who} (${words(outcome.reason)})` : who;
}

// The banner a finished board opens with: who won, why, and the final scores or life if given.
export function outcomeBanner(view) {
  const outcome = view.outcome || {};
  const totals = outcome.scores || outcome.life;
  return el("div", { class: "outcome-banner", "data-testid": "outcome", role: "status" },
    el("strong", {}, "Finished: "), outcomeText(outcome),
    totals && typeof totals === "object" && !Array.isArray(totals)
      ? el("span", { class: "totals" }, ` · ${outcome.scores ? "scores" : "life"} `,
        Object.entries(totals).map(([seat, n]) => `${seat} ${n}`).join(" · "))
      : "");
}

// "to act" / "wins" after a seat's name, by whether the view is finished.
export function seatTag(view, seat, { acting, actingText = "to act" } = {}) {
  if (isFinished(view)) {
    return winnersOf(view).includes(seat) ? el("span", { class: "winner" }, " · winner") : "";
  }
  return acting ? el("span", { class: "to-move" }, ` · ${actingText}`) : "";
}

// "3 cards" for a count that may be missing.
export function cards(count) {
  return plural(count ?? 0, "card");
}
