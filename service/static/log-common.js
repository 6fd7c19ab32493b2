// What every game's log shares: the words of the match-level records (created, joined, finished,
// clock, disputes), the generic sentence for any other kind (so a new game still gets a log), the
// names of seats and cards for one viewer, and the selectors that mark a move on the board.

import { callSentence } from "./calls.js";

const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** An event kind in words: "CardPlayed" → "card played". */
export function kindWords(kind) {
  return String(kind).replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

/** A value in words: "lowest_hand" → "lowest hand". */
export function words(value) {
  return String(value ?? "").replaceAll("_", " ");
}

/** "a card", "3 cards". */
export function count(n, one, many = `${one}s`) {
  return Number(n) === 1 ? `a ${one}` : `${n} ${many}`;
}

/** A list in words: "a", "a and b", "a, b and c". */
export function listWords(items) {
  const list = [...items];
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
}

/**
 * Names for one viewer: `name(seat)` the seat's player name (the seat id when it has none),
 * `card(id)` a card's name from the ruleset's catalogue, `unit(instance)` a card instance by the
 * name of the card a record showed it to be (`remember`), `viewer` the seat (or role) viewing.
 */
export function logContext(summary, catalogue, viewer) {
  const names = new Map();
  for (const seat of (summary && summary.seats) || []) names.set(seat.seat, seat.name || seat.seat);
  const cards = new Map();
  collectCards(catalogue, cards);
  const instances = new Map();   // a card instance ("p1-04") → its card id, as records show it
  const card = (id) => cards.get(String(id)) || String(id);
  return {
    viewer,
    name: (seat) => (seat === null || seat === undefined ? "someone" : names.get(seat) || String(seat)),
    // A seat's name as its SeatJoined record gives it (a page may hold an older summary).
    nameSeat: (seat, name) => { if (seat && name) names.set(seat, name); },
    card,
    // Learn which card an instance is, from a record that shows it.
    remember: (instance, id) => { if (instance && id) instances.set(String(instance), String(id)); },
    // An instance by its card's name when a record has shown it, else by its id.
    unit: (instance) => (instances.has(String(instance)) ? card(instances.get(String(instance))) : String(instance)),
  };
}

// Every catalogue entry with an id: its name, else its rank and suit (signs for S H D C), else its face.
function collectCards(node, out) {
  if (Array.isArray(node)) {
    for (const item of node) collectCards(item, out);
    return;
  }
  if (node === null || typeof node !== "object") return;
  if (typeof node.id === "string") {
    const suit = SUIT_SIGNS[node.suit] || node.suit;
    const name = node.name || (node.rank !== undefined ? (SUIT_SIGNS[node.suit] ? `${node.rank}${suit}` : `${suit} ${node.rank}`)
      : node.face !== undefined ? `a ${node.face}` : null);
    if (name) out.set(node.id, String(name));
  }
  for (const value of Object.values(node)) collectCards(value, out);
}

// ----- selectors that mark the last move on a board ----------------------------------------------

// A CSS attribute selector for one value.
function attr(name, value) {
  return `[${name}="${CSS.escape(String(value))}"]`;
}

/** The board square `x` ("d3"). */
export const square = (x) => attr("data-square", x);
/** The piece `x` ("S4"). */
export const piece = (x) => attr("data-piece", x);
/** The card (or card instance) `x`. */
export const card = (x) => attr("data-card", x);
/** The stack named `x`. */
export const stack = (x) => attr("data-stack", x);
/** Slot `slot` of `seat`'s grid. */
export const seatSlot = (seat, slot) => `${attr("data-seat", seat)} ${attr("data-slot", slot)}`;

// ----- sentences every game shares ---------------------------------------------------------------

/** Sentences of the records every match has, by kind: (public, secret, context, record) → text. */
export const COMMON = {
  MatchCreated: (p) => `The match was created${p.ruleset ? ` (${p.ruleset})` : ""}`,
  SeatJoined: (p, s, c) => `${c.name(p.seat)} joined as ${p.seat}`,
  MatchFinished: (p, s, c) => finishedWords(p.outcome || {}, c),
  Resigned: (p, s, c) => `${c.name(p.seat)} resigned`,
  SeatResigned: (p, s, c) => `${c.name(p.seat)} resigned`,
  // The command as the seat sent it, before what it caused; its body is sealed where it holds a secret.
  CommandReceived: (p, s, c, r) => `${c.name(p.seat)} sent ${words(p.type)}${p.signature || (s && s.signature) ? " (signed)" : ""}${
    r.commitment && !s ? " (details sealed)" : ""}`,
  SeatKeyChanged: (p, s, c) => `The organizer gave ${c.name(p.seat)} a new seat key`,
  SeatTimedOut: (p, s, c) => `${c.name(p.seat)} ran out of time`,
  FinalGambitCalled: (p, s, c) => `${c.name(p.seat)} called Final Gambit`,
  ClockPaused: () => "The clock was paused",
  ClockResumed: () => "The clock was resumed",
  ClockExpired: (p, s, c) => `${c.name(p.seat)}'s time ran out`,
  TimeAdded: (p, s, c) => `${c.name(p.seat)} was given ${p.seconds} more seconds`,
  DisputeFiled: (p, s, c) => `${c.name(p.filed_by)} disputed the ruling at version ${p.call_version}`,
  DisputeRuled: (p) => `The dispute was ruled: ${words(p.decision)}`,
  OutcomeAmended: () => "The outcome was amended after a dispute",
};

/** A finished match's outcome in words: "Won by alice", "No winner". */
export function finishedWords(outcome, c) {
  const winners = Array.isArray(outcome.winners) ? outcome.winners : [];
  const reason = outcome.reason ? ` (${words(outcome.reason)})` : "";
  return winners.length ? `Won by ${listWords(winners.map(c.name))}${reason}` : `The match ended with no winner${reason}`;
}

/** Any record no sentence knows: who did what, from its kind ("alice: unit boosted"). */
export function genericSentence(record, c) {
  const p = record.public || {};
  const who = p.seat ?? p.caller ?? null;
  const what = kindWords(record.kind);
  const hidden = record.commitment && record.secret === undefined ? " (hidden)" : "";
  return who ? `${c.name(who)}: ${what}${hidden}` : `${what.charAt(0).toUpperCase()}${what.slice(1)}${hidden}`;
}

/** The sentence of one record for this viewer: the game's, else the shared one, else the generic one. */
export function sentenceFor(record, game, c) {
  const p = record.public || {};
  const secret = record.secret === undefined ? null : record.secret;
  const say = (game.sentences || {})[record.kind] || COMMON[record.kind];
  let text = null;
  try {
    text = say ? say(p, secret, c, record) : null;
  } catch (err) {
    // A payload this game's words do not expect (a newer ruleset version) still gets the generic line.
    console.warn(`no words for ${record.kind} at v${record.version}: ${err.message}`);
  }
  if (!text) text = genericSentence(record, c);
  // A record that carries a ruling on a call says it, unless the game's sentence already does.
  if (p.bluff_call && typeof p.bluff_call === "object" && !(game.ownCalls || []).includes(record.kind)) {
    text += `; ${callSentence(p.bluff_call, c.name, c.card)}`;
  }
  return text;
}

/** The board selectors of one record's move (none when it moved nothing one can point at). */
export function marksFor(record, game) {
  const mark = (game.marks || {})[record.kind];
  if (!mark) return [];
  try {
    return (mark(record.public || {}, record.secret === undefined ? null : record.secret, record) || []).filter(Boolean);
  } catch (err) {
    return [];
  }
}
