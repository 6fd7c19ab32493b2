// Sending one command as the seat: If-Match the version the move was offered at, one
// Idempotency-Key per intended command, and the same request again (same key, same If-Match) when
// it got no answer or a server error, so a retry can never record the move twice.

import { authHeaders } from "./api.js";
import { signCommand } from "./seat-keys.js";

// How often a move that got no answer is sent again (same key, same If-Match) before giving up.
const RETRIES = 2;

// A fresh Idempotency-Key: one per intended command.
function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** One intended command: its body, its own Idempotency-Key and the version it was offered at. */
export function newIntent(body, version) {
  return { body, key: newKey(), version };
}

/** POST the intent to the match's commands, signed by the seat's key when this page holds one: { response } once
 * answered, else { response: null, failure }. */
export async function sendCommand(matchId, token, intent, seat) {
  let response = null;
  let failure = null;
  // Signed once per intent: a retry is the same command at the same version, so the same signature.
  if (intent.signature === undefined) {
    intent.signature = await signCommand(matchId, seat, intent.version, intent.body).catch(() => null);
  }
  const signed = intent.signature ? { "Gambit-Signature": intent.signature } : {};
  for (let tries = 0; tries <= RETRIES && !response; tries += 1) {
    try {
      const answer = await fetch(`/matches/${encodeURIComponent(matchId)}/commands`, {
        method: "POST",
        headers: authHeaders(token, {
          "Content-Type": "application/json", "If-Match": `"${intent.version}"`, "Idempotency-Key": intent.key, ...signed,
        }),
        body: JSON.stringify(intent.body),
        cache: "no-store",
      });
      // A server error may have happened after the write: the same key makes the retry safe.
      if (answer.status >= 500 && tries < RETRIES) await new Promise((r) => setTimeout(r, 300 * (tries + 1)));
      else response = answer;
    } catch (err) {
      failure = err;
      if (tries < RETRIES) await new Promise((r) => setTimeout(r, 300 * (tries + 1)));
    }
  }
  return { response, failure };
}
