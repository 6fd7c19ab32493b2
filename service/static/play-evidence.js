// Bluff calls as they happen, each with its opened evidence re-checked here: every opened secret is
// committed again with WebCrypto SHA-256 exactly as docs/verification.md says (canonical JSON of
// {"salt", "secret"}) and compared with the commitment stored in the record at that version.

import { callSentence } from "./calls.js";
import { el } from "./dom.js";

const MAX_JSON_INT = 2 ** 53 - 1;
// A UTF-16 surrogate without its partner: not text, so canonical JSON refuses it (as the server does).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Keys in Unicode code point order (= UTF-8 byte order, Python's order), not UTF-16 code unit order. */
export function compareCodePoints(a, b) {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(j);
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return (a.length - i) - (b.length - j);
}

// A string as canonical JSON writes it (JSON.stringify escapes exactly the same characters).
function canonicalString(text) {
  if (LONE_SURROGATE.test(text)) throw new Error("a lone UTF-16 surrogate cannot be committed");
  return JSON.stringify(text);
}

/** canonical(value) of docs/verification.md: sorted keys, no spaces, non-ASCII as itself; throws on what it refuses. */
export function canonical(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return canonicalString(value);
  if (typeof value === "number") {
    // Records hold integers only; a fraction would need Python's float spelling, which JSON.parse has lost.
    if (!Number.isInteger(value) || Math.abs(value) > MAX_JSON_INT) throw new Error(`${value} cannot be committed`);
    return String(value === 0 ? 0 : value);
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value).sort(compareCodePoints);
    return `{${keys.map((key) => `${canonicalString(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  throw new Error(`a ${typeof value} is not JSON`);
}

/** Lowercase hex SHA-256 of a text's UTF-8 bytes (null where WebCrypto is unavailable: not a secure context). */
export async function sha256Hex(text) {
  if (!(globalThis.crypto && crypto.subtle)) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The commitment to a secret under a salt: sha256(canonical({"salt", "secret"})) as lowercase hex. */
export async function commitmentOf(secret, salt) {
  return sha256Hex(canonical({ salt, secret }));
}

/**
 * Re-check opened evidence: each item `{version, secret, salt}` against `storedAt(version)`, the
 * commitment in the record at that version. Returns {ok: true | false | null, items: [...]}, where
 * ok is null when nothing could be checked (no evidence open to this viewer, or no WebCrypto).
 */
export async function checkEvidence(items, storedAt) {
  const results = [];
  for (const item of items || []) {
    const stored = storedAt(item.version);
    let computed = null;
    let problem = null;
    try {
      computed = await commitmentOf(item.secret, item.salt);
    } catch (err) {
      problem = err.message;
    }
    if (computed === null && problem === null) return { ok: null, items: results };
    results.push({ version: item.version, stored, computed, ok: Boolean(stored) && computed === stored, problem });
  }
  if (results.length === 0) return { ok: null, items: results };
  return { ok: results.every((r) => r.ok), items: results };
}

/** One call (an audit entry, or a record's public `bluff_call`) as a sentence that says what happened. */
export function describeCall(call) {
  return callSentence(call);
}

// What the check of one entry says, in words, and its CSS class.
function checkWords(result, entry) {
  if (result.ok === true) return ["evidence checks out", "ok"];
  if (result.ok === false) {
    const bad = result.items.filter((r) => !r.ok).map((r) => `v${r.version}`).join(", ");
    return [`MISMATCH: the opened evidence of ${bad} does not match its commitment`, "bad"];
  }
  const sealed = (entry.evidence_versions || []).length > 0;
  return [sealed ? "evidence sealed from you until it is revealed" : "no evidence to check", "muted"];
}

/**
 * The list of calls in the play panel: one line per call (newest first), each with the browser's
 * own check of the evidence this viewer may open. `storedAt(version)` gives the commitment the
 * chained record at that version holds.
 */
export class CallLog {
  // `list` is the <ol> the lines go in.
  constructor(list, storedAt) {
    this.list = list;
    this.storedAt = storedAt;
    this.lines = new Map(); // ruling (or call) version -> <li>
    this.decorate = null;   // entry -> a control to add to its line (the seat's "dispute this call"), or null
  }

  // Forget every line (the viewer changed).
  clear() {
    this.lines.clear();
    this.list.replaceChildren();
  }

  // A Final Gambit (or other) call announced before its ruling: a line waiting for the outcome.
  announce(version, text) {
    if (this.lines.has(version)) return;
    this.put(version, el("li", { class: "call pending", "data-call-version": String(version) },
      el("span", { class: "call-text" }, `v${version}: ${text}`)));
  }

  // Show (or update) the line of one audit entry and check its evidence.
  async show(entry) {
    const version = entry.ruling_version ?? entry.call_version ?? entry.claim_version;
    if (version === null || version === undefined) return;
    if (entry.call_version && entry.call_version !== version) this.drop(entry.call_version);
    const check = el("span", { class: "call-check muted" }, "checking evidence…");
    const line = el("li", { class: `call verdict-${entry.verdict}`, "data-call-version": String(version) },
      el("span", { class: "call-text" }, `v${version}: ${describeCall(entry)}`), " · ", check);
    // A line drawn again keeps its control as it is (a half-typed dispute survives a reload of the calls).
    const kept = this.lines.has(version) ? this.lines.get(version).querySelector(".dispute-call") : null;
    if (kept) line.append(kept);
    else if (this.decorate) line.append(this.decorate(entry) || "");
    this.put(version, line);
    const result = await checkEvidence(entry.opened, (v) => this.storedAt(v) || (entry.commitments || {})[String(v)]);
    const [text, tone] = checkWords(result, entry);
    check.textContent = text;
    check.className = `call-check ${tone}`;
    line.dataset.check = tone;
  }

  // Put a line in place of the same version's line, or on top.
  put(version, line) {
    const old = this.lines.get(version);
    if (old) old.replaceWith(line);
    else this.list.prepend(line);
    this.lines.set(version, line);
  }

  // Remove the line of a version (an announcement its ruling replaces).
  drop(version) {
    const old = this.lines.get(version);
    if (old) old.remove();
    this.lines.delete(version);
  }

  // How many lines there are.
  get size() {
    return this.lines.size;
  }
}
