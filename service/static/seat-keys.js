// The seat's signing key in the page (docs/verification.md, "Seat keys and signed commands"): a WebCrypto key
// pair made at join — Ed25519 where the browser has it, else ECDSA P-256 — whose private half is
// non-extractable and kept in IndexedDB per match and seat, so a reload keeps it. The join registers the
// public half; every move is then signed over canonical {"match_id", "version", "command"}. Without
// WebCrypto (a page not served over HTTPS or localhost) the page joins without a key and plays unsigned.

import { el } from "./dom.js";
import { canonical } from "./play-evidence.js";

const DB_NAME = "gambit-seat-keys";
const STORE = "keys";

/** Whether this page can make and keep a seat key (a secure context with WebCrypto and IndexedDB). */
export function signingAvailable() {
  return Boolean(globalThis.isSecureContext && globalThis.crypto && crypto.subtle && globalThis.indexedDB);
}

// The key pair: Ed25519 where supported, else ECDSA P-256 (signatures as raw r‖s, as the service expects).
async function generate() {
  try {
    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
    return { alg: "ed25519", pair };
  } catch {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
    return { alg: "p256", pair };
  }
}

function base64(buffer) {
  return btoa(String.fromCharCode(...new Uint8Array(buffer)));
}

/** A fresh seat key for a join: { alg, pair, publicKey: the join's `public_key` }; null when the page cannot sign. */
export async function newSeatKey() {
  if (!signingAvailable()) return null;
  try {
    const { alg, pair } = await generate();
    const spki = await crypto.subtle.exportKey("spki", pair.publicKey);
    return { alg, pair, publicKey: { alg, key: base64(spki) } };
  } catch {
    return null;
  }
}

// One IndexedDB request as a promise.
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function store(mode) {
  const open = indexedDB.open(DB_NAME, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  const db = await done(open);
  return db.transaction(STORE, mode).objectStore(STORE);
}

/** Keep the seat's key (its CryptoKeys, the private one non-extractable) for this match and seat. */
export async function keepSeatKey(matchId, seat, key) {
  if (!key) return;
  const keys = await store("readwrite");
  await done(keys.put({ alg: key.alg, privateKey: key.pair.privateKey, publicKey: key.publicKey }, `${matchId}/${seat}`));
}

/** The kept key of this match and seat, or null (none kept here, or no IndexedDB). */
export async function seatKey(matchId, seat) {
  if (!signingAvailable() || !seat) return null;
  try {
    const keys = await store("readonly");
    return (await done(keys.get(`${matchId}/${seat}`))) || null;
  } catch {
    return null;
  }
}

/** The Gambit-Signature of a command decided on `version`, or null when this page holds no key for the seat. */
export async function signCommand(matchId, seat, version, body) {
  const key = await seatKey(matchId, seat);
  if (!key) return null;
  const message = new TextEncoder().encode(canonical({ match_id: matchId, version, command: body }));
  const algorithm = key.alg === "ed25519" ? { name: "Ed25519" } : { name: "ECDSA", hash: "SHA-256" };
  return base64(await crypto.subtle.sign(algorithm, key.privateKey, message));
}

/** A line saying whether this seat's moves are signed here (filled in once the key store has answered). */
export function signingNote(matchId, seat) {
  const note = el("p", { class: "hint", "data-testid": "signing-note", "data-signing": "pending" });
  seatKey(matchId, seat).then((key) => {
    const signed = Boolean(key);
    note.dataset.signing = signed ? "signed" : "unsigned";
    if (signed) note.textContent = `Your moves are signed with a ${key.alg === "ed25519" ? "Ed25519" : "P-256"} key kept in this browser.`;
    else if (!signingAvailable()) note.textContent = "Your moves are unsigned: this page cannot sign here (signing needs HTTPS).";
    else note.textContent = "Your moves are unsigned: this browser holds no key for this seat.";
  });
  return note;
}
