// A move refused as stale (412: another seat wrote first) is sent again by itself when nothing the
// seat can see has changed: the service keeps its contract (a stale If-Match is refused), and the
// page decides like the player would have. Sent again when
//   - the seat is offered the same moves as when it chose (ignoring the version), and
//   - the body it chose is still offered now, and
//   - what it sees is unchanged: its view state is equal (ignoring the version), or every record
//     written since was another seat's act whose content is hidden from this seat (a sealed
//     Initiative, a peek, an assignment of powers: the shape of every simultaneous phase).
// Otherwise the page says what changed and asks again.

import { domainProblem } from "./play-controls.js";

// A copy with object keys sorted, so equal values stringify alike.
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
  }
  return value;
}

// JSON equality, key order ignored.
function same(a, b) {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

/** Whether two legal-commands answers offer the same moves (their versions aside). */
export function sameMoves(before, now) {
  return Boolean(before && now) && before.seat === now.seat
    && same([before.commands, before.choices], [now.commands, now.choices]);
}

/** Whether a body is offered by a legal-commands answer: listed, or formed from one of its choices. */
export function offers(legal, body) {
  if ((legal.commands || []).some((command) => same(command, body))) return true;
  return (legal.choices || []).some((choice) => formedFrom(choice, body));
}

// A body formed from a choice: its type, the fixed fields as given, each free field in its domain.
function formedFrom(choice, body) {
  if (body.type !== choice.type) return false;
  const fixed = choice.fixed || {};
  const free = choice.free || {};
  for (const key of Object.keys(body)) {
    if (key !== "type" && !(key in fixed) && !(key in free)) return false;
  }
  if (!Object.entries(fixed).every(([key, value]) => same(body[key], value))) return false;
  return Object.entries(free).every(([key, domain]) => {
    if (!(key in body)) return "one_of" in domain && domain.one_of.includes(null);
    return domainProblem(domain, body[key]) === null;
  });
}

/** Whether the seat's view state is the same (the version aside). */
export function sameState(before, now) {
  return Boolean(before && now) && same(before.state, now.state);
}

/**
 * Whether every record is another seat's act whose content this seat cannot see. A write's
 * `CommandReceived` (the command as another seat sent it) counts as that act's, judged by the
 * records it caused.
 */
export function onlyHiddenActsOfOthers(records, seat) {
  const others = (record) => (record.public || {}).seat !== undefined && record.public.seat !== seat;
  const effects = records.filter((record) => record.kind !== "CommandReceived");
  return effects.length > 0 && records.every((record) => record.kind !== "CommandReceived" || others(record))
    && effects.every((record) => {
      const p = record.public || {};
      const hidden = Boolean(record.commitment) && record.secret === undefined;
      return hidden && others(record) && !p.bluff_call && !p.opens;
    });
}

/** Decide after a 412: {resend: bool, why: text} from what the seat saw and what it sees now. */
export function decideResend({ seen, legal, view, records, body }) {
  if (!view || view.status !== "active") return { resend: false, why: "the match is not running" };
  if (!sameMoves(seen.legal, legal)) return { resend: false, why: "your moves changed" };
  if (!offers(legal, body)) return { resend: false, why: "your move is no longer offered" };
  if (sameState(seen.view, view)) return { resend: true, why: "nothing you can see changed" };
  if (onlyHiddenActsOfOthers(records, legal.seat)) return { resend: true, why: "another seat acted in secret" };
  return { resend: false, why: "the table changed" };
}
