// What a ruled call was, in words that say what happened: a guess is right or wrong, a sealed play
// revealed matches its commitment or not, a Final Gambit's claim holds or fails; only a claim that
// another seat called is a bluff call. Used by the call list, the audit panel and the timeline.

// A value in words ("lowest_hand" → "lowest hand").
function words(value) {
  return String(value).replaceAll("_", " ");
}

/** What kind of call an audit entry or a record's `bluff_call` is: guess, reveal, final or bluff. */
export function callKind(call) {
  if (!call || typeof call !== "object") return "bluff";
  if (call.declared_type !== undefined) return "guess";
  if (call.kind === "initiative" || call.kind === "threshold" || call.sealed_play) return "reveal";
  if (call.claim === "lowest_hand") return "final";
  if (call.caller && call.claimant && call.caller === call.claimant) return "reveal";
  return "bluff";
}

/** The ruling of a call in one short phrase ("wrong", "matches its commitment", "bluff caught"). */
export function verdictWords(call) {
  const kind = callKind(call);
  const v = call.verdict;
  if (v !== "true" && v !== "false") return v ? words(v) : "awaiting the ruling";
  const held = v === "true";
  if (kind === "guess") return held ? "right" : `wrong${call.actual_type ? ` (it was ${article(call.actual_type)})` : ""}`;
  if (kind === "reveal") return held ? "matches its commitment" : "does not match its commitment";
  if (kind === "final") return held ? "the claim holds" : "the claim fails";
  return held ? "the claim was true" : "bluff caught";
}

// "a trap", "an item".
function article(noun) {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${words(noun)}`;
}

/** One call as a sentence, seats named by `name(seat)` and cards by `cardName(id)` (ids by default). */
export function callSentence(call, name = (seat) => seat, cardName = (id) => id) {
  const kind = callKind(call);
  const claimant = name(call.claimant || "?");
  const caller = call.caller ? name(call.caller) : null;
  const verdict = verdictWords(call);
  if (kind === "guess") {
    return `${caller || "?"} guessed ${claimant}'s set card was ${article(call.declared_type)}: ${verdict}`;
  }
  if (kind === "reveal") {
    const what = call.kind || call.sealed_play || call.power || call.claim || "sealed play";
    return `${claimant}'s ${words(what)} revealed${call.card ? ` (${cardName(call.card)})` : ""}: ${verdict}`;
  }
  if (kind === "final") {
    const penalty = (call.consequences || {}).penalty;
    return `${claimant}'s Final Gambit (lowest hand): ${verdict}${penalty ? ` — ${penalty} penalty points` : ""}`;
  }
  const what = call.power || call.claim || call.kind || "claim";
  const on = call.piece || call.card;
  const loser = (call.consequences || {}).piece_lost_by;
  return `${caller || "?"} called ${claimant}'s ${words(what)} claim${on ? ` on ${on}` : ""} a bluff: ${verdict}`
    + `${loser ? ` — ${name(loser)} loses a piece` : ""}`;
}
