// Why a request of the play panel was refused, in plain words, and the box that says it (with a
// Retry button when sending the same request again is safe).

import { el } from "./dom.js";

/** A refused request's problem in plain words: [headline, details line]. */
export function problemWords(status, problem, version) {
  const code = problem.code || `HTTP ${status}`;
  const extra = [`code: ${code}`, problem.rule ? `rule: ${problem.rule}` : ""].filter(Boolean).join(" · ");
  const said = problem.detail || problem.title || "";
  if (status === 412) {
    return [`The match moved on past version ${version} before your move arrived. Your moves are refreshed: choose again.`, extra];
  }
  if (status === 409 && code === "seat_unavailable") return [`That seat is not free: ${said}`, extra];
  if (status === 409) return ["Another move was being recorded at the same moment. Your moves are refreshed: choose again.", extra];
  if (status === 422 && code === "illegal_command") return [`That move is not allowed: ${said}.`, extra];
  if (code === "signature_required" || code === "invalid_signature") {
    return ["This seat signs its moves with a key kept in the browser it joined from, and this page cannot sign for it. Play from that browser, or ask the organizer to re-key the seat.", extra];
  }
  if (status === 401 || status === 403) return [`This page's token may not do that: ${said}.`, extra];
  if (status === 429) return ["Too many requests just now: wait a moment, then try again.", extra];
  if (status === 0) return [`Your move got no answer: ${said}.`, extra];
  return [`${problem.title || "Refused"}: ${said}`, extra];
}

/** Show a problem in `box` (null words hide it), with a Retry button when `retry` is given. */
export function renderProblem(box, words, retry = null) {
  if (!words) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const [headline, details] = words;
  box.hidden = false;
  box.replaceChildren(el("strong", {}, headline), details ? el("div", { class: "hint" }, details) : "");
  if (retry) {
    const button = el("button", { type: "button", "data-action": "retry" }, "Retry");
    button.addEventListener("click", retry);
    box.append(button);
  }
}
