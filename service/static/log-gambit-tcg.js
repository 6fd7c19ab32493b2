// The gambit-tcg game log: cards played, set face down (hidden from the opponent), attacks, damage.

import { card, count, listWords, words } from "./log-common.js";

// A record that shows which card an instance is teaches the log its name.
function learn(p, c) {
  if (p.card && p.id) c.remember(p.card, p.id);
  if (p.unit && p.id) c.remember(p.unit, p.id);
}

// A card named by its catalogue id when the record has one, else by what the log knows of the instance.
function named(p, c) {
  learn(p, c);
  return p.id ? c.card(p.id) : c.unit(p.card);
}

/** One sentence per gambit-tcg record kind: (public, secret or null, context) → text. */
export const sentences = {
  DeckRegistered: (p, s, c) => `${c.name(p.seat)} registered ${s && s.deck ? `the ${s.deck} deck` : "a deck"} of ${p.size} cards`,
  DeckShuffled: (p, s, c) => `${c.name(p.seat)}'s deck was shuffled`,
  CardsDrawn: (p, s, c) => {
    if (s && s.ids) for (const [instance, id] of Object.entries(s.ids)) c.remember(instance, id);
    const cards = p.cards || [];
    return `${c.name(p.seat)} drew ${s && s.ids ? listWords(cards.map((x) => c.unit(x))) : count(cards.length, "card")}`;
  },
  GameStarted: (p, s, c) => `The game began at ${p.life} life: ${c.name(p.first_seat)} goes first`,
  FreeSetDeclined: (p, s, c) => `${c.name(p.seat)} declined the free set`,
  TurnBegan: (p, s, c) => `Turn ${p.turn}: ${c.name(p.seat)}'s turn`,
  PhaseBegan: (p, s, c) => `${c.name(p.seat)}'s ${words(p.phase).replace(/(\D)(\d)/, "$1 $2")} phase`,
  WindowOpened: (p) => `A trap window opened (${words(p.window)})`,
  WindowPassed: (p, s, c) => `${c.name(p.seat)} passed the trap window${p.automatic ? " (nothing left to do)" : ""}`,
  WindowClosed: () => "The trap window closed",
  TurnEnded: (p, s, c) => `${c.name(p.seat)} ended turn ${p.turn}`,
  SeatLost: (p, s, c) => `${listWords((p.seats || []).map(c.name))} lost: ${words(p.reason)}`,
  TurnLimitReached: (p) => `The turn limit (${p.turn_limit}) was reached`,
  CardSet: (p, s, c) => {
    if (s) c.remember(s.card, s.id);
    return `${c.name(p.seat)} set ${s ? `${c.card(s.id)} (${words(s.type)})` : "a card"} face down${p.free ? " for free" : ""}`;
  },
  CardEnergized: (p, s, c) => `${c.name(p.seat)} turned ${named(p, c)} into energy`,
  CardPlayed: (p, s, c) => `${c.name(p.seat)} played ${named(p, c)}${p.from === "set" ? " from the set zone" : ""}`
    + `${p.target ? ` on ${c.unit(p.target)}` : ""}`,
  SpellResolved: (p, s, c) => `${named(p, c)} resolved`,
  SpellNullified: (p, s, c) => `${named(p, c)} was nullified by ${c.unit(p.by)}`,
  TrapActivated: (p, s, c) => `${c.name(p.seat)} sprang the trap ${named(p, c)}`,
  SetCardRevealed: (p, s, c) => `${c.name(p.seat)} revealed ${c.name(p.owner)}'s set card: ${named(p, c)}`
    + `${p.returned_to_hand ? ", back to hand" : ""}`,
  UnitSacrificed: (p, s, c) => `${c.name(p.seat)} sacrificed ${c.unit(p.unit)}`,
  UnitDestroyed: (p, s, c) => { learn(p, c); return `${c.unit(p.unit)} was destroyed`; },
  PlayerDamaged: (p, s, c) => `${c.name(p.seat)} took ${p.amount} damage`,
  UnitDamaged: (p, s, c) => `${c.unit(p.unit)} took ${p.amount} damage`,
  UnitBoosted: (p, s, c) => `${c.unit(p.unit)} got +${p.might}/+${p.endurance} until the end of the turn`,
  AttackerMuted: (p, s, c) => `${c.unit(p.unit)} deals no damage this combat`,
  FieldDestroyed: (p, s, c) => `${c.name(p.owner)}'s field ${named(p, c)} was destroyed`,
  AttackDeclared: (p, s, c) => ((p.attackers || []).length
    ? `${c.name(p.seat)} attacked ${c.name(p.target)} with ${listWords(p.attackers.map(c.unit))}`
    : `${c.name(p.seat)} skipped combat`),
  BlocksAwaited: (p, s, c) => `${c.name(p.seat)} chooses blockers`,
  BlockersAssigned: (p, s, c) => {
    const pairs = Object.entries(p.blocks || {});
    return pairs.length ? `${c.name(p.seat)} blocked: ${listWords(pairs.map(([b, a]) => `${c.unit(b)} blocks ${c.unit(a)}`))}`
      : `${c.name(p.seat)} did not block`;
  },
  CombatResolved: (p, s, c) => {
    const hits = Object.entries(p.player_damage || {}).map(([seat, n]) => `${c.name(seat)} took ${n}`);
    return `Combat resolved${hits.length ? `: ${listWords(hits)}` : ""}`;
  },
};

/** What each move marks on the board: the card played, set, energized or attacking. */
export const marks = {
  CardSet: (p) => [card(p.card)],
  CardPlayed: (p) => [card(p.card)],
  CardEnergized: (p) => [card(p.card)],
  TrapActivated: (p) => [card(p.card)],
  SetCardRevealed: (p) => [card(p.card)],
  AttackDeclared: (p) => (p.attackers || []).map(card),
  BlockersAssigned: (p) => Object.keys(p.blocks || {}).map(card),
};
