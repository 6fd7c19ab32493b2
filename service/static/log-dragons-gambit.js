// The dragons-gambit game log: draws, swaps and peeks, with faces only for the seat that saw them.

import { count, listWords, seatSlot } from "./log-common.js";

// "their own card" or "bob's card".
function whose(seat, target, c) {
  return seat === target ? "one of their own cards" : `one of ${c.name(target)}'s cards`;
}

/** One sentence per dragons-gambit record kind: (public, secret or null, context) → text. */
export const sentences = {
  RoundDealt: (p, s, c) => `Round ${p.round} dealt, ${p.cards_per_seat} cards each: ${c.name(p.first_seat)} opens`,
  InitialCardsPeeked: (p, s, c) => (s
    ? `${c.name(p.seat)} looked at ${listWords(s.cards.map((x) => `a ${x.face}`))} in their grid`
    : `${c.name(p.seat)} looked at ${count((p.slots || []).length, "card")} in their grid`),
  DiscardStarted: (p) => `The discard pile starts with a ${p.face}`,
  DrawPileReshuffled: () => "The discard pile was shuffled into a new draw pile",
  CardDrawn: (p, s, c) => `${c.name(p.seat)} drew ${s ? `a ${s.face}` : "a card"}`,
  DrawnCardSwapped: (p, s, c) => `${c.name(p.seat)} put the drawn card into their grid and discarded a ${(p.discarded || {}).face}`,
  DrawnCardDiscarded: (p, s, c) => `${c.name(p.seat)} discarded the drawn ${p.face}${p.ability !== null && p.ability !== undefined ? " for its ability" : ""}`,
  TokenAdded: (p, s, c) => `${c.name(p.seat)} put a ${p.delta > 0 ? "+1" : "−1"} token on ${whose(p.seat, p.target_seat, c)}`,
  CardPeeked: (p, s, c) => `${c.name(p.seat)} peeked at ${whose(p.seat, p.target_seat, c)}${s ? `: a ${s.face}` : ""}`,
  CardsBlindSwapped: (p, s, c) => `${c.name(p.seat)} swapped one of their cards with one of ${c.name(p.other_seat)}'s, unseen`,
  AbilitySkipped: (p, s, c) => `${c.name(p.seat)} skipped the ${p.ability}'s ability`,
  DiscardTaken: (p, s, c) => `${c.name(p.seat)} took the ${p.face} from the discard pile and discarded a ${(p.discarded || {}).face}`,
  RoundEnded: (p, s, c) => `Round ${p.round} ended${(p.round_winners || []).length ? `: lowest hand ${listWords(p.round_winners.map(c.name))}` : ""}`,
  FinalGambitCalled: (p, s, c) => `${c.name(p.seat)} called Final Gambit in round ${p.round}`,
};

/** What each move marks on the board: the slot a card went into or was touched in. */
export const marks = {
  DrawnCardSwapped: (p) => [seatSlot(p.seat, p.slot)],
  DiscardTaken: (p) => [seatSlot(p.seat, p.slot)],
  TokenAdded: (p) => [seatSlot(p.target_seat, p.slot)],
  CardPeeked: (p) => [seatSlot(p.target_seat, p.slot)],
  CardsBlindSwapped: (p) => [seatSlot(p.seat, p.slot), seatSlot(p.other_seat, p.other_slot)],
};
