// The dispute desk: the tournament's queue of disputes (open first, each element carrying
// data-dispute-id="<match_id>/<number>"), and one dispute opened to its call, verdict, evidence
// (re-checked in this browser), the records around it and the filer's reason, with the organizer's
// actions — rule (uphold or overturn, a note, an amended outcome), pause/resume the clock, add time —
// each showing the records it wrote and the receipt signed for them.

import { getAllEvents, getAudit, getJSON, getSummary } from "./api.js";
import { postJSON } from "./credentials.js";
import { el, plural, shortHex } from "./dom.js";
import { entryFor, recordLine, renderCall, renderEvidence, renderTimeline } from "./evidence-view.js";

const PAGE = 50;

/** The id a dispute's element carries: `<match_id>/<number>`. */
export function disputeId(dispute) {
  return `${dispute.match_id}/${dispute.dispute}`;
}

// A seat with its player's name, for choices ("p1 — Ada").
function seatLabel(seat) {
  return `${seat.seat}${seat.name ? ` — ${seat.name}` : ""}`;
}

/** The dispute desk of the organizer's page. `desk` holds the tournament id, the key and refresh hooks. */
export class DisputeDesk {
  constructor(queueBox, detailBox, desk) {
    this.queueBox = queueBox;
    this.detailBox = detailBox;
    this.desk = desk;
    this.disputes = [];
    this.next = null;
    this.openId = null;
  }

  /** Open disputes per match id (for the matches table). */
  openCounts() {
    const counts = new Map();
    for (const d of this.disputes) if (d.status === "open") counts.set(d.match_id, (counts.get(d.match_id) || 0) + 1);
    return counts;
  }

  /** Read the queue again from its first page (more pages when asked). */
  async load(more = false) {
    const after = more ? this.next : 0;
    const page = await getJSON(`/tournaments/${encodeURIComponent(this.desk.tid)}/disputes?after=${after}&limit=${PAGE}`, this.desk.key);
    this.disputes = more ? [...this.disputes, ...page.disputes] : page.disputes;
    this.next = page.next_after;
    this.renderQueue();
  }

  // The queue: open disputes, then ruled ones, each with a button that opens it.
  renderQueue() {
    const open = this.disputes.filter((d) => d.status === "open").length;
    const items = this.disputes.map((d) => {
      const button = el("button", { type: "button", class: "open-dispute", "aria-controls": "dispute-detail" },
        `Open dispute ${d.dispute}`);
      button.addEventListener("click", () => this.open(d).catch((err) => this.desk.showError(err.message)));
      return el("li", { class: `dispute status-${d.status}${disputeId(d) === this.openId ? " current" : ""}`, "data-dispute-id": disputeId(d),
        "data-status": d.status },
        el("span", { class: `badge status-${d.status === "open" ? "open" : "finished"}` }, d.status === "open" ? "open" : `ruled: ${d.decision}`), " ",
        el("strong", {}, `match ${d.match_id.slice(0, 8)} · dispute ${d.dispute}`), " ",
        el("span", {}, `call v${d.call_version}, filed by ${d.filed_by}: “${d.reason}”`), " ", button,
        d.status === "ruled" ? el("a", { href: `/ruling/${encodeURIComponent(d.match_id)}/${d.dispute}`, class: "ruling-link" }, "printable ruling") : null);
    });
    const more = el("button", { type: "button", hidden: this.next === null }, "More disputes");
    more.addEventListener("click", () => this.load(true).catch((err) => this.desk.showError(err.message)));
    this.queueBox.replaceChildren(
      el("p", { class: "hint", "data-open-disputes": String(open) }, `${plural(open, "open dispute")}; ${plural(this.disputes.length - open, "ruled dispute")} listed.`),
      this.disputes.length ? el("ol", { class: "dispute-queue" }, items) : el("p", { class: "muted" }, "No disputes filed."),
      more);
  }

  /** Open one dispute: its match, call, evidence, timeline, and the actions on it. */
  async open(dispute) {
    this.openId = disputeId(dispute);
    this.renderQueue();
    const key = this.desk.key;
    const [summary, audit, records, clock, disputes] = await Promise.all([
      getSummary(dispute.match_id, key), getAudit(dispute.match_id, key), getAllEvents(dispute.match_id, key),
      getJSON(`/matches/${encodeURIComponent(dispute.match_id)}/clock`, key),
      getJSON(`/matches/${encodeURIComponent(dispute.match_id)}/disputes`, key)]);
    const current = { ...dispute, ...(disputes.disputes.find((d) => d.dispute === dispute.dispute) || {}) };
    const entry = entryFor(audit.calls, current.call_version);
    const evidence = el("div", { class: "evidence-box" });
    this.log = el("div", { class: "action-log", "aria-live": "polite", "data-testid": "action-log" });
    const filer = summary.seats.find((s) => s.seat === current.filed_by);
    this.detailBox.replaceChildren(el("article", { class: "dispute-open", "data-dispute-id": disputeId(dispute), "data-status": current.status },
      el("h3", {}, `Dispute ${current.dispute} on match `, el("code", {}, summary.match_id.slice(0, 8)), ` (${summary.ruleset}, ${summary.status})`),
      el("p", { class: "reason" }, el("strong", {}, "Filed by "), `${current.filed_by}${filer && filer.name ? ` (${filer.name})` : ""}`,
        ` at v${current.filed_version}: `, el("q", {}, current.reason)),
      el("h4", {}, "The call"), renderCall(entry),
      el("h4", {}, "Evidence"), evidence,
      el("h4", {}, "On the timeline"), renderTimeline(records, entry, current),
      el("h4", {}, "Actions"),
      current.status === "open" ? this.rulingForm(summary, current, clock.clock) : this.ruled(current),
      clock.clock ? this.clockForm(summary, current, clock.clock) : el("p", { class: "muted" }, "This match is untimed: no clock to pause."),
      this.log));
    await renderEvidence(evidence, entry, records);
  }

  // What a ruled dispute says, and its printable page.
  ruled(dispute) {
    return el("p", { class: "ruled" }, `Ruled ${dispute.decision}${dispute.note ? `: “${dispute.note}”` : ""} (v${dispute.ruled_version}). `,
      el("a", { href: `/ruling/${encodeURIComponent(dispute.match_id)}/${dispute.dispute}` }, "Open the printable ruling"));
  }

  // The ruling form: decision, note, an amended outcome (finished matches), resume the clock with it.
  rulingForm(summary, dispute, clock) {
    const ids = `ruling-${dispute.dispute}`;
    const decision = (value, text) => el("label", { class: "choice" },
      el("input", { type: "radio", name: `${ids}-decision`, value, required: true }), ` ${text}`);
    const note = el("textarea", { id: `${ids}-note`, rows: "3", maxlength: "2000", required: true });
    const amend = el("input", { type: "checkbox", id: `${ids}-amend` });
    const winners = summary.seats.map((seat) => el("label", { class: "choice" },
      el("input", { type: "checkbox", name: `${ids}-winner`, value: seat.seat }), ` ${seatLabel(seat)}`));
    const reason = el("input", { type: "text", id: `${ids}-reason`, maxlength: "200", value: "ruling" });
    const amendBox = el("fieldset", { class: "amend", hidden: true }, el("legend", {}, "Amended outcome: the winners"),
      winners, el("div", { class: "field" }, el("label", { for: reason.id }, "reason"), reason));
    amend.addEventListener("change", () => { amendBox.hidden = !amend.checked; });
    const resume = el("input", { type: "checkbox", id: `${ids}-resume` });
    const form = el("form", { class: "ruling-form", "data-testid": "ruling-form" },
      el("fieldset", {}, el("legend", {}, "Decision"), decision("upheld", "uphold the call's verdict"), decision("overturned", "overturn it")),
      el("div", { class: "field" }, el("label", { for: note.id }, "Written ruling (the reason, recorded and public)"), note),
      summary.status === "finished"
        ? el("div", { class: "field check" }, amend, el("label", { for: amend.id }, "amend the match's outcome"))
        : el("p", { class: "hint" }, "The outcome can be amended once the match has finished."),
      amendBox,
      clock && clock.paused ? el("div", { class: "field check" }, resume, el("label", { for: resume.id }, "resume the clock with the ruling")) : null,
      el("button", { type: "submit" }, "Record the ruling"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = { decision: form.querySelector(`input[name="${ids}-decision"]:checked`).value, note: note.value.trim() };
      if (amend.checked) {
        body.amended_outcome = { winners: winners.map((w) => w.querySelector("input")).filter((i) => i.checked).map((i) => i.value),
          reason: reason.value.trim() || "ruling" };
      }
      if (resume.checked) body.resume_clock = true;
      this.act(`/matches/${encodeURIComponent(dispute.match_id)}/disputes/${dispute.dispute}/ruling`, body, `Ruling on dispute ${dispute.dispute}`, dispute);
    });
    return form;
  }

  // The clock's controls: pause with this dispute, resume, add time to a seat.
  clockForm(summary, dispute, clock) {
    const base = `/matches/${encodeURIComponent(dispute.match_id)}/clock`;
    const ids = `clock-${dispute.dispute}`;
    const note = el("input", { type: "text", id: `${ids}-note`, maxlength: "2000", value: `dispute ${dispute.dispute}` });
    const pause = el("button", { type: "button", disabled: clock.paused }, "Pause the clock");
    const resume = el("button", { type: "button", disabled: !clock.paused }, "Resume the clock");
    pause.addEventListener("click", () => this.act(`${base}/pause`, { note: note.value, dispute: dispute.dispute }, "Clock paused", dispute));
    resume.addEventListener("click", () => this.act(`${base}/resume`, { note: note.value }, "Clock resumed", dispute));
    const seat = el("select", { id: `${ids}-seat` }, summary.seats.map((s) => el("option", { value: s.seat }, seatLabel(s))));
    const seconds = el("input", { type: "number", id: `${ids}-seconds`, min: "1", max: "604800", step: "1", value: "60" });
    const add = el("form", { class: "add-time" },
      el("div", { class: "field" }, el("label", { for: seat.id }, "seat"), seat),
      el("div", { class: "field" }, el("label", { for: seconds.id }, "seconds (1 to 604800)"), seconds),
      el("button", { type: "submit" }, "Add time"));
    add.addEventListener("submit", (event) => {
      event.preventDefault();
      this.act(`${base}/add-time`, { seat: seat.value, seconds: Number(seconds.value), note: note.value }, `Time added to ${seat.value}`, dispute);
    });
    const state = clock.paused ? "paused" : summary.status === "finished" ? "stopped (match over)" : "running";
    return el("fieldset", { class: "clock-actions" }, el("legend", {}, `Clock (${state})`),
      el("div", { class: "field" }, el("label", { for: note.id }, "note"), note), pause, " ", resume, add);
  }

  // Post an organizer action; show the records it wrote and its receipt, then reload the desk.
  async act(path, body, what, dispute) {
    try {
      const answer = await postJSON(path, this.desk.key, body);
      this.showWritten(what, answer);
      await this.desk.refresh();
      const reopened = this.disputes.find((d) => disputeId(d) === disputeId(dispute)) || dispute;
      const log = this.log;
      await this.open(reopened);
      this.log.replaceWith(log);
      this.log = log;
    } catch (err) {
      this.log.prepend(el("p", { class: "error", role: "alert" }, `${what}: refused — ${err.message}${err.code ? ` (${err.code})` : ""}`));
    }
  }

  // One action's entry in the log: the records written and the receipt signed for them.
  showWritten(what, answer) {
    const receipt = answer.receipt || {};
    this.log.prepend(el("div", { class: "written", "data-written-version": String(answer.version) },
      el("p", {}, el("strong", {}, `${what}: recorded `), plural(answer.events.length, "record"), ` (now v${answer.version})`),
      el("ol", { class: "records" }, answer.events.map((r) => recordLine(r))),
      el("p", { class: "muted" }, "receipt: v", String(receipt.version), " head ", shortHex(receipt.head), " key ", receipt.key_id || "—",
        " signature ", shortHex(receipt.signature)),
      answer.events.some((r) => r.kind === "DisputeRuled")
        ? el("a", { href: `/ruling/${encodeURIComponent(receipt.match_id)}/${answer.events.find((r) => r.kind === "DisputeRuled").public.dispute}` },
          "Open the printable ruling") : null));
  }
}
