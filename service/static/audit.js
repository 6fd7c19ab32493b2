// The audit panel of one bluff call / Final Gambit call: claim, verdict, consequences,
// evidence when this viewer may see it, the server's `verified`, and a re-check in the browser.

import { callKind, callSentence, verdictWords } from "./calls.js";
import { el, scalar, shortHex, tree } from "./dom.js";
import { checkEvidence } from "./play-evidence.js";

/**
 * Re-open every commitment of an entry's evidence that this viewer may open (revealed to everyone, or
 * the ruling's copies): {ok: true | false | null, items: [{version, stored, computed, ok, problem}]}.
 * `storedAt(version)` may give the commitment of the chained record at that version; the entry's
 * own `commitments` stand in where it gives none.
 */
export async function checkEntry(entry, storedAt = () => null) {
  const opened = Array.isArray(entry.opened) && entry.opened.length ? entry.opened : entry.evidence && entry.evidence.opened;
  if (!Array.isArray(opened) || opened.length === 0) return { ok: null, items: [] };
  return checkEvidence(opened, (version) => storedAt(version) || (entry.commitments || {})[String(version)]);
}

// Re-open every opened commitment of an entry here: true/false, or null when it cannot be checked.
export async function verifyInBrowser(entry) {
  return (await checkEntry(entry)).ok;
}

// A verified flag as a badge.
function verifiedBadge(value, what) {
  if (value === true) return el("span", { class: "badge ok" }, `✔ ${what}`);
  if (value === false) return el("span", { class: "badge bad" }, `✘ ${what}`);
  return el("span", { class: "badge muted" }, `${what}: not checkable by this viewer`);
}

/** Fill `panel` with the audit entry of `callVersion` (or a note when there is none yet). */
export function renderAudit(panel, { entry, marker, disputes, onClose }) {
  panel.hidden = false;
  panel.replaceChildren();
  const close = el("button", { type: "button", class: "close", title: "Close", "aria-label": "Close audit entry" }, "×");
  close.addEventListener("click", onClose);
  panel.append(close, el("h2", {}, marker ? marker.label : "Audit entry"));
  if (!entry) {
    panel.append(el("p", { class: "muted" }, "No ruling for this call yet (it is ruled when the round ends)."));
    panel.dataset.callVersion = marker && marker.callVersion ? String(marker.callVersion) : "";
    return;
  }
  panel.dataset.callVersion = String(entry.call_version ?? entry.ruling_version);
  const claim = {};
  for (const [key, value] of Object.entries(entry)) {
    if (!["consequences", "evidence", "commitments", "salt", "verified", "disputes", "ruling_commitment",
          "evidence_versions", "hand_totals", "opened"].includes(key)) claim[key] = value;
  }
  panel.append(
    el("p", { class: `verdict verdict-${entry.verdict}`, "data-call-kind": callKind(entry) }, callSentence(entry)),
    el("p", { class: "muted" }, `Ruling: ${verdictWords(entry)}`),
    el("div", { class: "verified", id: "audit-verified" }, verifiedBadge(entry.verified, "verified (server)"),
      el("span", { id: "audit-browser-check" })),
    el("h3", {}, callKind(entry) === "bluff" ? "Claim" : "What was sealed or said"), tree(claim),
    el("h3", {}, "Consequences"), tree(entry.consequences || {}),
    ...(entry.hand_totals ? [el("h3", {}, "Hand totals"), tree(entry.hand_totals)] : []),
    el("h3", {}, "Evidence"),
    entry.evidence
      ? el("div", {}, tree(entry.evidence))
      : el("p", { class: "muted" }, "Hidden from this viewer until the match ends (the commitments below are public)."),
    el("h3", {}, "Commitments"),
    el("dl", { class: "tree" }, Object.entries(entry.commitments || {}).map(([v, c]) => [el("dt", {}, `v${v}`), el("dd", {}, shortHex(c))]),
      el("dt", {}, "ruling"), el("dd", {}, shortHex(entry.ruling_commitment))));
  const all = [...(entry.disputes || []), ...(disputes || [])];
  const seen = new Set();
  const unique = all.filter((d) => !seen.has(d.version) && seen.add(d.version));
  if (unique.length) {
    panel.append(el("h3", {}, "Disputes"), el("ul", { class: "disputes" }, unique.map((d) => el("li", {},
      `v${d.version} ${d.kind}: dispute ${d.dispute}` + (d.reason ? ` — “${d.reason}” (${d.filed_by})` : "")
      + (d.decision ? ` — ${d.decision}${d.note ? `: ${d.note}` : ""}` : "")))));
  }
  verifyInBrowser(entry).then((ok) => {
    const slot = panel.querySelector("#audit-browser-check");
    if (slot && ok !== null) slot.replaceChildren(verifiedBadge(ok, "re-checked in this browser"));
  });
}
