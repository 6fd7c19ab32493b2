// The evidence of a disputed call as the dispute desk and the printable ruling show it: the call in
// words, every commitment of its evidence re-opened in this browser (audit.js's checks) and marked
// checked or MISMATCH, where each sealed record was opened, and the records around the call.

import { checkEntry } from "./audit.js";
import { el, scalar, shortHex, tree, words } from "./dom.js";
import { describeCall } from "./play-evidence.js";

const CALL_FIELDS_LEFT_OUT = ["consequences", "evidence", "commitments", "salt", "verified", "disputes", "ruling_commitment",
  "evidence_versions", "hand_totals", "opened"];

/** The record at a version of a list that holds every record from version 1. */
export function recordAt(records, version) {
  return records[version - 1] || null;
}

/** The audit entry a dispute is about (its call version is the call's, or the ruling's for a Final Gambit). */
export function entryFor(calls, callVersion) {
  return calls.find((c) => c.call_version === callVersion || c.ruling_version === callVersion || c.claim_version === callVersion) || null;
}

/** The call: a sentence, the verdict the rules gave, its consequences and the claim's facts. */
export function renderCall(entry) {
  if (!entry) return el("p", { class: "muted" }, "The call's audit entry is not visible to this viewer yet.");
  const claim = Object.fromEntries(Object.entries(entry).filter(([k]) => !CALL_FIELDS_LEFT_OUT.includes(k)));
  const verdict = entry.verdict === "true" ? "claim TRUE" : entry.verdict === "false" ? "claim FALSE" : scalar(entry.verdict);
  return el("div", { class: "call", "data-call-version": String(entry.call_version ?? "") },
    el("p", { class: "call-sentence" }, describeCall(entry)),
    el("dl", { class: "facts" },
      el("dt", {}, "claim"), el("dd", {}, words(entry.claim || entry.power || entry.kind || "claim"), entry.claimant ? ` by ${entry.claimant}` : ""),
      el("dt", {}, "called by"), el("dd", {}, scalar(entry.caller)),
      el("dt", {}, "verdict of the rules"), el("dd", { class: `verdict verdict-${entry.verdict}`, "data-verdict": scalar(entry.verdict) }, verdict),
      el("dt", {}, "ruled at"), el("dd", {}, entry.ruling_version ? `v${entry.ruling_version}${entry.ruling_kind ? ` (${entry.ruling_kind})` : ""}` : "—")),
    el("details", {}, el("summary", {}, "The call's facts and consequences"), tree(claim), tree(entry.consequences || {})));
}

// Where the sealed record at `version` was opened: a revealing record, the end of the match, or not yet.
function openedWhere(version, records, item, finishedAt) {
  const reveal = records.find((r) => r && r.version > version && Array.isArray((r.public || {}).opens) && r.public.opens.includes(version));
  if (reveal) return `opened at v${reveal.version} (${reveal.kind})`;
  if (item && finishedAt) return `opened at the end of the match (v${finishedAt})`;
  if (item) return "still sealed: shown to the organizer only";
  return "still sealed";
}

/**
 * The evidence table: one row per sealed record the call rests on, with its commitment, where it was
 * opened, the browser's check (data-check: ok | bad | sealed) and the opened secret. Resolves once checked.
 */
export async function renderEvidence(box, entry, records) {
  box.replaceChildren();
  if (!entry) return { ok: null };
  const versions = (entry.evidence_versions && entry.evidence_versions.length ? entry.evidence_versions
    : Object.keys(entry.commitments || {}).map(Number)).slice().sort((a, b) => a - b);
  const storedAt = (v) => (recordAt(records, v) || {}).commitment || null;
  const result = await checkEntry(entry, storedAt);
  const byVersion = new Map(result.items.map((i) => [i.version, i]));
  const opened = Array.isArray(entry.opened) && entry.opened.length ? entry.opened : (entry.evidence && entry.evidence.opened) || [];
  const items = new Map(opened.map((i) => [i.version, i]));
  const finished = records.find((r) => r && r.kind === "MatchFinished");
  const rows = versions.map((v) => {
    const check = byVersion.get(v);
    const tone = !check ? "sealed" : check.ok ? "ok" : "bad";
    const record = recordAt(records, v);
    const mark = tone === "ok" ? el("span", { class: "badge ok" }, "✔ checked")
      : tone === "bad" ? el("span", { class: "badge bad" }, `✘ MISMATCH${check.problem ? ` (${check.problem})` : ""}`)
        : el("span", { class: "badge muted" }, "sealed: not checkable here");
    const item = items.get(v);
    return el("tr", { "data-evidence-version": String(v), "data-check": tone },
      el("td", { "data-label": "record" }, `v${v}${record ? ` ${record.kind}` : ""}`),
      el("td", { "data-label": "commitment" }, el("code", { class: "hex full" }, storedAt(v) || (entry.commitments || {})[String(v)] || "—")),
      el("td", { "data-label": "opened" }, openedWhere(v, records, item, finished ? finished.version : null)),
      el("td", { "data-label": "check" }, mark),
      el("td", { "data-label": "secret" }, item ? el("details", {}, el("summary", {}, "secret and salt"), tree(item.secret),
        el("p", { class: "muted" }, "salt ", el("code", {}, item.salt))) : "—"));
  });
  const summary = result.ok === true ? el("p", { class: "badge ok", "data-evidence-check": "ok" }, "Every opened commitment re-checked in this browser (SHA-256): all match.")
    : result.ok === false ? el("p", { class: "badge bad", "data-evidence-check": "bad" }, "MISMATCH: some opened evidence does not match its commitment.")
      : el("p", { class: "badge muted", "data-evidence-check": "sealed" }, "The evidence is sealed from this viewer until it is revealed (its commitments are public).");
  box.append(summary, el("table", { class: "evidence" },
    el("thead", {}, el("tr", {}, ["record", "commitment", "opened", "check", "secret"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows)));
  if (entry.ruling_commitment) box.append(el("p", { class: "muted" }, "ruling commitment ", shortHex(entry.ruling_commitment)));
  return result;
}

// One record as a line: version, kind, time, its public part in brief.
export function recordLine(record, mark = "") {
  const text = JSON.stringify(record.public || {});
  return el("li", { "data-version": String(record.version), class: mark },
    el("strong", {}, `v${record.version} ${record.kind}`), " ",
    el("span", { class: "muted" }, new Date(record.timestamp).toLocaleString()), " ",
    el("code", { class: "public" }, text.length > 220 ? `${text.slice(0, 220)}…` : text),
    record.commitment ? el("span", { class: "muted" }, " · sealed part, commitment ", shortHex(record.commitment)) : "");
}

/** The records around a call (a few before it to its ruling) and every record of the dispute. */
export function renderTimeline(records, entry, dispute) {
  const call = dispute.call_version;
  const first = Math.max(1, call - 3);
  const last = Math.min(records.length, Math.max((entry && entry.ruling_version) || call, call) + 1);
  const around = records.slice(first - 1, last);
  const ofDispute = records.filter((r) => r.version > last && ["DisputeFiled", "DisputeRuled", "OutcomeAmended", "ClockPaused",
    "ClockResumed", "TimeAdded"].includes(r.kind) && (r.public || {}).dispute === dispute.dispute);
  return el("ol", { class: "records", "aria-label": "Records around the call" },
    around.map((r) => recordLine(r, r.version === call ? "the-call" : "")),
    ofDispute.length ? el("li", { class: "gap muted" }, "…") : null,
    ofDispute.map((r) => recordLine(r, "of-dispute")));
}

/** The `gambit verify` command line for an export (and a kept receipt). */
export function verifyCommand(exportFile, receiptFile = null) {
  return `gambit verify ${exportFile} --key signing-key.json${receiptFile ? ` --receipt ${receiptFile}` : ""}`;
}
