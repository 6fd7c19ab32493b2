// The gambit-board game log: moves with their claims, answers, rulings and pieces lost.

import { callSentence } from "./calls.js";
import { listWords, piece, square, words } from "./log-common.js";

// A move's plan in words: "S4 d1→d3 claiming diagonal".
function planWords(plan) {
  const claims = (plan.claims || []).map(words);
  return `${plan.piece} ${plan.from}→${plan.to}${claims.length ? ` claiming ${listWords(claims)}` : ""}`
    + `${plan.sat_on ? `, sitting on ${plan.sat_on}` : ""}${plan.push ? ", pushing" : ""}`;
}

/** One sentence per gambit-board record kind: (public, secret or null, context) → text. */
export const sentences = {
  FirstSeatDrawn: (p, s, c) => `${c.name(p.first_seat)} was drawn to open`,
  PowerDieRolled: (p, s, c) => `${c.name(p.seat)} rolled a power die${s ? `: ${s.chance_result + 1}` : ""}`,
  BoardSetUp: (p, s, c) => `The board was set up: ${c.name(p.first_seat)} opens`,
  PowersAssigned: (p, s, c) => `${c.name(p.seat)} assigned their pieces' powers${s ? "" : " (hidden)"}`,
  PowerCommitted: (p, s, c) => (s
    ? `${c.name(p.seat)} committed ${s.piece}'s ${words(s.power_type)} power: ${s.power ? words(s.power) : "none"}`
    : `${c.name(p.seat)} committed ${p.piece}'s ${words(p.power_type)} power (hidden)`),
  PieceMoved: (p, s, c) => `${c.name(p.seat)} moved ${planWords(p.plan || {})}`,
  DetectClaimed: (p, s, c) => `${c.name(p.seat)} claimed detect: ${p.piece} looks at ${p.target}`,
  ClaimAccepted: (p, s, c) => `${c.name(p.seat)} accepted the claim`,
  MoatAccepted: (p, s, c) => `${c.name(p.seat)} accepted the moat of ${p.moat_piece}: the move goes back`,
  KamikazeAccepted: (p, s, c) => `${c.name(p.seat)} accepted the kamikaze of ${p.kamikaze_piece}: ${p.sitter} is lost`,
  PowersDetected: (p, s, c) => `${c.name(p.seat)} saw ${p.target}'s powers${s ? `: ${listWords((s.powers || []).map(words)) || "none"}` : ""}`,
  MoatClaimed: (p, s, c) => `${c.name(p.seat)} claimed moat with ${p.piece}`,
  KamikazeClaimed: (p, s, c) => `${c.name(p.seat)} claimed kamikaze with ${p.piece}`,
  BluffRuled: (p, s, c) => callSentence(p.bluff_call || {}, c.name),
  ReassignmentDieRolled: (p, s, c) => `${c.name(p.seat)} rolled a die to reassign a ${words(p.power_type)} power`,
  PieceLost: (p, s, c) => `${c.name(p.seat)} lost ${p.piece} on ${p.square}`
    + ` (${(p.powers || []).length ? `it held ${listWords(p.powers.map(words))}` : "it held no power"})`,
  PowerReassigned: (p, s, c) => (s
    ? `${c.name(p.seat)} gave ${s.piece} the ${words(s.power)} power`
    : `${c.name(p.seat)} reassigned a ${words(p.power_type)} power (hidden)`),
  PlayerPowerEarned: (p, s, c) => `${c.name(p.seat)}'s ${p.piece} reached the far row`
    + (p.power ? `: Player Power ${words(p.power)}` : ": a Player Power to name"),
  PlayerPowerChosen: (p, s, c) => `${c.name(p.seat)} chose the ${words(p.power)} Player Power`,
  SenseiClaimed: (p, s, c) => `${c.name(p.seat)} claimed Sensei: ${listWords((p.powers || []).map(words))} from ${p.source} to ${p.target}`,
  MagicianSwapped: (p, s, c) => `${c.name(p.seat)} swapped ${p.piece} (${p.piece_square}) and ${p.target} (${p.target_square})`,
  WitchDoctorSwapped: (p, s, c) => `${c.name(p.seat)} answered with the Witch Doctor: ${p.piece} and ${p.mover} traded powers`,
  JuggernautOffered: (p, s, c) => `${c.name(p.seat)} answered with the Juggernaut: one more move`,
  JuggernautDeclined: (p, s, c) => `${c.name(p.seat)} declined the Juggernaut move`,
  MatchWon: (p, s, c) => `${c.name(p.winner)} won: ${words(p.reason)}`,
};

/** The ruling records say their call themselves. */
export const ownCalls = ["BluffRuled"];

/** What each move marks on the board: the piece and the squares it left and reached. */
export const marks = {
  PieceMoved: (p) => [piece((p.plan || {}).piece), square((p.plan || {}).from), square((p.plan || {}).to)],
  PieceLost: (p) => [square(p.square)],
  MagicianSwapped: (p) => [square(p.piece_square), square(p.target_square)],
  DetectClaimed: (p) => [piece(p.piece), piece(p.target)],
};
