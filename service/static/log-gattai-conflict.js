// The gattai-conflict game log: sealed plays (hidden until revealed), reveals, triggers and stages.

import { callSentence } from "./calls.js";
import { card, count, listWords, words } from "./log-common.js";

// "the 7♣ and the Q♦".
function cardList(cards, c) {
  return listWords((cards || []).map((id) => `the ${c.card(id)}`));
}

// A reveal: the card, then what the ruling says of its commitment.
function revealed(p, c) {
  return callSentence(p.bluff_call || { kind: "sealed play", claimant: p.seat, card: p.card }, c.name, c.card);
}

/** One sentence per gattai-conflict record kind: (public, secret or null, context) → text. */
export const sentences = {
  DeckShuffled: (p) => `The ${p.deck} deck was shuffled`,
  OmenRevealed: (p) => `An Omen was set out beside the ${p.deck} deck`,
  CardsDrawn: (p, s, c) => `${c.name(p.seat)} drew ${s ? cardList(s.cards, c) : count(p.count, "card")}`,
  ThreatStackDealt: (p) => `${count(p.count, "card")} went face down onto ${p.threat}`,
  CardMilled: (p, s, c) => `The ${c.card(p.card)} went from the ${p.deck} deck to its Trash`,
  ConflictStarted: (p) => `The ${words(p.mode)} conflict began at Harmony ${p.harmony}`,
  TriggerFired: (p, s, c) => {
    const fired = p.fired || {};
    return `${words(fired.trigger)} fired at ${c.name(fired.target)}${fired.by ? ` by ${c.name(fired.by)}` : ""}`;
  },
  TriggerResolved: (p, s, c) => `${c.name(p.target)} ${p.prevented ? "prevented" : "took"} ${words(p.trigger)}`,
  OmenSpent: (p, s, c) => `${c.name(p.seat)} spent an Omen: ${words(p.effect)}`,
  CleanupStarted: () => "Hands were refilled",
  CardsDiscarded: (p, s, c) => `${c.name(p.seat)} discarded ${cardList(p.cards, c)}`,
  ThresholdSealed: (p, s, c) => `${c.name(p.seat)} set ${s ? `the ${c.card(s.card)}` : "a card"} face down as the Threshold`,
  PilotCardPlayed: (p, s, c) => `${c.name(p.seat)} ${p.source === "deck" ? "flipped" : "played"} the ${c.card(p.card)}`,
  ThresholdRevealed: (p, s, c) => revealed(p, c),
  OutcomeChosen: (p, s, c) => `${c.name(p.seat)} chose ${words(p.outcome)}`,
  BoonPicked: (p, s, c) => `${c.name(p.seat)} picked the boon ${words(p.trigger)}${p.times > 1 ? ` ×${p.times}` : ""}`,
  ComplicationNamed: (p, s, c) => `${c.name(p.seat)} named the complication ${words(p.trigger)} for ${c.name(p.target)}`,
  GambitResolved: (p, s, c) => `The Gambit ended: ${words(p.outcome)}`
    + `${(p.winners || []).length ? `, won by ${listWords(p.winners.map(c.name))}` : ""}`,
  InitiativeSealed: (p, s, c) => `${c.name(p.seat)} set ${s ? `the ${c.card(s.card)}` : "a card"} face down as their Initiative`,
  InitiativeRevealed: (p, s, c) => revealed(p, c),
  InitiativeResolved: (p, s, c) => (p.winner ? `${c.name(p.winner)} won the Initiative` : "The Initiative cards were identical"),
  DissonanceFlipped: (p, s, c) => `Dissonance flipped${p.card ? `: the ${c.card(p.card)}` : ""}`,
  ThrowdownCalledOff: (p) => `The Throwdown was called off: ${words(p.reason)}`,
  QuestionAnswered: (p, s, c) => `${c.name(p.commander)} draws ${p.draws} (${p.for_team ? "for the Team" : "solo"})`,
  ThreatStacksDrawn: () => "The Coach took the cards invested on his Threats",
  CardsGiven: (p, s, c) => `${c.name(p.seat)} gave ${c.name(p.to)} ${s ? cardList(s.cards, c) : count(p.count, "card")}`,
  CardsReturned: (p, s, c) => `${c.name(p.seat)} gave ${c.name(p.to)} back ${s ? cardList(s.cards, c) : count(p.count, "card")}`,
  Assisted: (p, s, c) => `${c.name(p.seat)} assisted with the ${c.card(p.card)}`,
  ThreatAssisted: (p, s, c) => `${p.threat} activated a ${words(p.kind)} with the ${c.card(p.card)}`,
  Countered: (p, s, c) => `${c.name(p.seat)} countered with the ${c.card(p.card)}`,
  Escalated: (p, s, c) => `${c.name(p.seat)} escalated with the ${c.card(p.card)} to stage ${p.new_stage}`,
  Rumbled: (p, s, c) => `${c.name(p.seat)} rumbled with the ${c.card(p.card)}`,
  Blocked: (p, s, c) => `${c.name(p.seat)} blocked with the ${c.card(p.card)}`,
  Conceded: (p, s, c) => `${c.name(p.seat)} conceded the stage${p.scorer ? `: ${c.name(p.scorer)} scores ${p.points}` : ""}`,
  ThrowdownEnded: (p, s, c) => (p.winner ? `The Throwdown ended: ${c.name(p.winner)} won` : "The Throwdown ended with no winner"),
  PilesCleared: () => "The Piles were cleared",
};

/** The reveal records say their call themselves. */
export const ownCalls = ["ThresholdRevealed", "InitiativeRevealed"];

/** What each move marks on the board: the card played or revealed. */
export const marks = {
  PilotCardPlayed: (p) => [card(p.card)],
  ThresholdRevealed: (p) => [card(p.card)],
  InitiativeRevealed: (p) => [card(p.card)],
  Countered: (p) => [card(p.card)],
  Escalated: (p) => [card(p.card)],
  Rumbled: (p) => [card(p.card)],
  Blocked: (p) => [card(p.card)],
  Assisted: (p) => [card(p.card)],
};
