// Disputing a call from the seat's page: each ruled call in the play panel's list offers a small form
// (the reason, in the seat's words) that files a dispute (POST /matches/{id}/disputes) for the
// tournament's organizer to rule on; the answer says which dispute was recorded, at which version.

import { postJSON } from "./credentials.js";
import { el } from "./dom.js";

const MAX_REASON = 500;
let forms = 0;

/** The "Dispute this call" control of one audit entry, for a seat holding `token`. */
export function disputeControl(entry, { matchId, token }) {
  const callVersion = entry.call_version ?? entry.ruling_version;
  if (!callVersion || !token) return null;
  forms += 1;
  const reason = el("textarea", { id: `dispute-reason-${forms}`, rows: "2", maxlength: String(MAX_REASON), required: true });
  const said = el("p", { class: "dispute-said", role: "status" });
  const submit = el("button", { type: "submit" }, "File the dispute");
  const form = el("form", { class: "dispute-form", "data-call-version": String(callVersion) },
    el("label", { for: reason.id }, "Why do you dispute this call?"), reason, submit, said);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const answer = await postJSON(`/matches/${encodeURIComponent(matchId)}/disputes`, token,
        { call_version: callVersion, reason: reason.value.trim() });
      const filed = answer.events.find((r) => r.kind === "DisputeFiled");
      said.textContent = `Dispute ${filed ? filed.public.dispute : ""} filed (recorded at v${answer.version}); the organizer will rule on it.`;
      said.className = "dispute-said ok";
      form.dataset.filed = filed ? String(filed.public.dispute) : "";
      reason.disabled = true;
    } catch (err) {
      said.textContent = `Not filed: ${err.message}`;
      said.className = "dispute-said bad";
      submit.disabled = false;
    }
  });
  return el("details", { class: "dispute-call" }, el("summary", {}, "Dispute this call"), form);
}
