// The gambitz game log: cards laid on stacks by rank, queens moved, hands drawn (hidden from others).

import { card, count, listWords, stack, words } from "./log-common.js";

// "the blue 7, the green knight".
function cardList(cards, c) {
  return listWords(cards.map((id) => `the ${c.card(id)}`));
}

/** One sentence per gambitz record kind: (public, secret or null, context) → text. */
export const sentences = {
  DeckShuffled: (p) => (p.reason === "redraw" ? "The deck was shuffled for a redraw" : "The deck was shuffled"),
  CardsDealt: (p, s, c) => `${c.name(p.seat)} was dealt ${s ? cardList(s.cards, c) : count(p.count, "card")}`,
  CardsDrawn: (p, s, c) => `${c.name(p.seat)} drew ${s ? cardList(s.cards, c) : count(p.count, "card")}`,
  GameStarted: (p, s, c) => `The game began: ${c.name(p.first_seat)} plays first`,
  CardPlayed: (p, s, c) => `${c.name(p.seat)} played the ${c.card(p.card)} on stack ${p.stack}`
    + `${p.points ? ` for ${p.points} ${p.points === 1 ? "point" : "points"}` : ""}${p.locks ? ", locking it" : ""}`,
  QueenMoved: (p, s, c) => `${c.name(p.seat)} moved the ${c.card(p.queen)} from stack ${p.from} to stack ${p.to}`,
  CardsReturned: (p, s, c) => `${c.name(p.seat)} put ${s ? cardList(s.cards, c) : count(p.count, "card")} under the deck`,
  HandShown: (p, s, c) => `${c.name(p.seat)} showed a stuck hand: ${cardList(p.cards || [], c)}`
    + (p.kept ? " (kept)" : " (returned for a redraw)"),
  TurnPassed: (p, s, c) => `${c.name(p.seat)} passed`,
  TurnBegan: (p, s, c) => `${c.name(p.seat)}'s turn`,
  GameEnded: (p) => `The game ended: ${words(p.reason)}`,
};

/** What each move marks on the board: the card played and its stack. */
export const marks = {
  CardPlayed: (p) => [card(p.card), stack(p.stack)],
  QueenMoved: (p) => [card(p.queen), stack(p.to)],
};
