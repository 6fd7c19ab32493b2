// The transparency log's formats and checks in the page (docs/verification.md, section 12): signed notes and
// checkpoints (C2SP signed-note, tlog-checkpoint), the log's Ed25519 signature and the witnesses' cosignatures
// (tlog-cosignature/v1), RFC 6962 / RFC 9162 inclusion and consistency proofs, and a write's leaf. Hashing is
// WebCrypto SHA-256 (a secure context: HTTPS or localhost); the same algorithms as domain/tlog.py, step by step.

import { canonical } from "./play-evidence.js";

const DASH = "\u2014";
const ED25519_NOTE = 0x01;
const ED25519_COSIGNATURE = 0x04;
// The most proof lines a tree of 2**63 leaves can need (as the service and `gambit verify` refuse more).
const MAX_PROOF_HASHES = 63;

/** Bytes of standard base64 (throws on anything else). */
export function fromBase64(text) {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Standard base64 of bytes. */
export function toBase64(bytes) {
  return btoa(String.fromCharCode(...bytes));
}

function utf8(text) {
  return new TextEncoder().encode(text);
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Whether two byte arrays are equal. */
export function sameBytes(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function leafHash(entry) {
  return sha256(concat(Uint8Array.of(0), entry));
}

function nodeHash(left, right) {
  return sha256(concat(Uint8Array.of(1), left, right));
}

/** A signed note: { text (ending in a newline), signatures: [{ name, keyId, signature }] }; throws when it is not one. */
export function parseNote(served) {
  const at = served.lastIndexOf("\n\n");
  if (at < 0 || !served.endsWith("\n")) throw new Error("not a signed note");
  const signatures = served.slice(at + 2).split("\n").filter(Boolean).map((line) => {
    const [name, encoded, extra] = line.slice(2).split(" ");
    if (!line.startsWith(`${DASH} `) || !name || !encoded || extra !== undefined) throw new Error("a bad signature line");
    const raw = fromBase64(encoded);
    return { name, keyId: raw.slice(0, 4), signature: raw.slice(4) };
  });
  if (!signatures.length) throw new Error("the note has no signature");
  return { text: served.slice(0, at + 1), signatures };
}

/** The checkpoint a note's text holds: { origin, size, root (bytes) }; throws when it is not one. */
export function parseCheckpoint(text) {
  const [origin, size, root] = text.split("\n");
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(size || "") || !root) throw new Error("not a checkpoint");
  const hash = fromBase64(root);
  if (hash.length !== 32) throw new Error("the checkpoint's root is not 32 bytes");
  return { origin, size: Number(size), root: hash };
}

// A signed-note key id: SHA-256(name || "\n" || type || public key)[:4].
async function keyId(name, kind, publicKey) {
  return (await sha256(concat(utf8(`${name}\n`), Uint8Array.of(kind), publicKey))).slice(0, 4);
}

// Whether an Ed25519 public key signed a message: true, false, or null where this browser has no Ed25519.
async function ed25519Verify(publicKey, signature, message) {
  let key;
  try {
    key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch {
    return null;
  }
  return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
}

/** Whether the service key (base64 of its raw 32 bytes) signed the note under the log's origin: true, false, or null
 * where the browser cannot check Ed25519. */
export async function signedByLog(note, origin, publicKeyB64) {
  const publicKey = fromBase64(publicKeyB64);
  const id = await keyId(origin, ED25519_NOTE, publicKey);
  const lines = note.signatures.filter((s) => s.name === origin && sameBytes(s.keyId, id));
  let answer = false;
  for (const line of lines) {
    const ok = await ed25519Verify(publicKey, line.signature, utf8(note.text));
    if (ok) return true;
    if (ok === null) answer = null;
  }
  return answer;
}

// A witness's vkey (name+hex key id+base64(0x04 || key)) as { name, publicKey }, or null when it is not one.
function parseWitnessKey(vkey) {
  const text = String(vkey);
  const first = text.indexOf("+");
  const second = text.indexOf("+", first + 1);
  if (first < 1 || second < 0) return null;
  const name = text.slice(0, first);
  const encoded = text.slice(second + 1); // base64 may itself hold a "+"
  try {
    const raw = fromBase64(encoded);
    return raw.length === 33 && raw[0] === ED25519_COSIGNATURE ? { name, publicKey: raw.slice(1) } : null;
  } catch {
    return null;
  }
}

/** The names of the witnesses (each `{name, vkey}`) whose valid tlog-cosignature/v1 the note carries, or null where
 * the browser cannot check Ed25519. */
export async function cosigners(note, witnesses) {
  const found = [];
  for (const witness of witnesses || []) {
    const key = parseWitnessKey(witness.vkey);
    if (!key) continue;
    const id = await keyId(key.name, ED25519_COSIGNATURE, key.publicKey);
    for (const line of note.signatures) {
      if (line.name !== key.name || !sameBytes(line.keyId, id) || line.signature.length !== 72) continue;
      const time = new DataView(line.signature.buffer, line.signature.byteOffset, 8).getBigUint64(0);
      const message = utf8(`cosignature/v1\ntime ${time}\n${note.text}`);
      const ok = await ed25519Verify(key.publicKey, line.signature.slice(8), message);
      if (ok === null) return null;
      if (ok) {
        found.push(key.name);
        break;
      }
    }
  }
  return found;
}

const odd = (n) => n % 2 === 1;
const half = (n) => Math.floor(n / 2);

/** Whether a consistency proof shows the tree of `second` leaves extends the one of `first` (RFC 9162, 2.1.4.2). */
export async function consistent(first, second, firstRoot, secondRoot, proof) {
  if (first > second || proof.length > MAX_PROOF_HASHES) return false;
  if (first === second) return proof.length === 0 && sameBytes(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (!proof.length) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sameBytes(fr, firstRoot) && sameBytes(sr, secondRoot) && sn === 0;
}

/** The root an inclusion proof leads to from a leaf hash (RFC 9162, 2.1.3.2); null when it cannot be one. */
export async function rootFromInclusion(index, size, leaf, proof) {
  if (index < 0 || index >= size || proof.length > MAX_PROOF_HASHES) return null;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return null;
    if (odd(fn) || fn === sn) {
      r = await nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : null;
}

/** A tlog-proof's parts: { extra (bytes or null), index, hashes, note, checkpoint }; throws when it is not one. */
export function parseProof(text) {
  const at = text.indexOf("\n\n");
  const lines = text.slice(0, at).split("\n");
  if (at < 0 || lines[0] !== "c2sp.org/tlog-proof@v1") throw new Error("not a tlog-proof");
  let position = 1;
  let extra = null;
  if ((lines[position] || "").startsWith("extra ")) {
    extra = fromBase64(lines[position].slice(6));
    position += 1;
  }
  const index = (lines[position] || "").match(/^index (0|[1-9][0-9]*)$/);
  if (!index) throw new Error("the proof has no index");
  const hashes = lines.slice(position + 1).map(fromBase64);
  const note = parseNote(text.slice(at + 2));
  return { extra, index: Number(index[1]), hashes, note, checkpoint: parseCheckpoint(note.text) };
}

/** The leaf hash of a receipt's write: of canonical {match_id, version, head, key_id}, sealed with a salt when the
 * proof carries one (a match with a spectator delay). */
export async function receiptLeaf(receipt, salt = null) {
  const opened = utf8(canonical({ match_id: receipt.match_id, version: receipt.version, head: receipt.head, key_id: receipt.key_id }));
  if (!salt) return leafHash(opened);
  const sealed = [...(await sha256(concat(salt, opened)))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return leafHash(utf8(canonical({ sealed })));
}

/** Whether a tlog-proof proves the receipt's write is a leaf of its checkpoint (of the log the receipt names). */
export async function proves(receipt, proofText) {
  try {
    const proof = parseProof(proofText);
    if (receipt.log && proof.checkpoint.origin !== receipt.log) return false;
    const leaf = await receiptLeaf(receipt, proof.extra);
    const root = await rootFromInclusion(proof.index, proof.checkpoint.size, leaf, proof.hashes);
    return root !== null && sameBytes(root, proof.checkpoint.root);
  } catch {
    return false;
  }
}
