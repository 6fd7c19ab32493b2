// "Matches at a glance" on the organizer's desk: a page of the tournament's matches (paged like the
// API, `next_after`) with status, who is to act, each seat's clock with a low-time mark, open
// disputes, a link to watch as organizer and the match's export.

import { rememberToken } from "./api.js";
import { outcomeText } from "./board-parts.js";
import { download } from "./credentials.js";
import { el, plural } from "./dom.js";

const PAGE = 20;
// A running clock under this share of its starting time, or under LOW_MS, is marked low.
const LOW_SHARE = 0.2;
const LOW_MS = 30000;

/** "4:05" or "1:02:03" for milliseconds. */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** Whether a seat's time left is low for its time control. */
export function isLow(ms, control) {
  const start = control && control.kind === "fischer" ? control.initial_s * 1000
    : control && control.kind === "per_decision" ? control.per_decision_s * 1000 : null;
  return ms <= LOW_MS || (start !== null && ms <= start * LOW_SHARE);
}

// A table cell labelled with its column (the label shows where a narrow screen stacks the cells).
function cell(label, ...children) {
  return el("td", { "data-label": label }, ...children);
}

/** The matches table of the desk. */
export class MatchBoard {
  constructor(box, desk) {
    this.box = box;
    this.desk = desk;
    this.cursors = [0];      // the `after` of each page read so far; the last is the page shown
    this.next = null;
  }

  /** Read the page shown again (or the next / previous one), with the tournament it comes with. */
  async load(step = 0) {
    if (step > 0 && this.next !== null) this.cursors.push(this.next);
    if (step < 0 && this.cursors.length > 1) this.cursors.pop();
    const after = this.cursors[this.cursors.length - 1];
    const tournament = await this.desk.get(`/tournaments/${encodeURIComponent(this.desk.tid)}?after=${after}&limit=${PAGE}`);
    this.next = tournament.next_after;
    this.desk.tournament = tournament;
    const clocks = await Promise.all(tournament.matches.map((m) => m.clock
      ? this.desk.get(`/matches/${encodeURIComponent(m.match_id)}/clock`).then((c) => c.clock).catch(() => m.clock) : null));
    this.render(tournament.matches, clocks, after);
    return tournament;
  }

  // The table of one page.
  render(matches, clocks, after) {
    const counts = this.desk.openDisputes();
    const names = this.desk.entrantNames();
    const rows = matches.map((m, i) => {
      const open = counts.get(m.match_id) || 0;
      const watch = el("a", { href: `/watch/${encodeURIComponent(m.match_id)}`, class: "watch-link" }, "Watch as organizer");
      // The key goes to the watch page through this tab's session storage, never in the URL.
      watch.addEventListener("click", () => rememberToken(m.match_id, this.desk.key));
      const exporter = el("button", { type: "button", class: "export-match" }, "Export");
      exporter.addEventListener("click", () => this.desk.exportMatch(m.match_id, exporter));
      return el("tr", { "data-match": m.match_id, "data-status": m.status },
        cell("Match", el("code", { title: m.match_id }, m.match_id.slice(0, 8)), el("br"), el("span", { class: "muted" }, m.ruleset)),
        cell("Status", el("span", { class: `badge status-${m.status}` }, m.status),
          m.outcome ? el("div", { class: "muted" }, outcomeText(m.outcome)) : null),
        cell("Seats", el("ul", { class: "seat-list" }, m.seats.map((s) => el("li", {},
          el("strong", {}, s.seat), " ", s.name || (s.joined ? "" : "(open)"),
          s.entrant_id ? el("span", { class: "muted" }, ` · ${names.get(s.entrant_id) || s.entrant_id}`) : null,
          (m.to_act || []).includes(s.seat) ? el("span", { class: "to-move" }, " · to act") : null)))),
        cell("Clock", this.clockCell(clocks[i])),
        cell("Disputes", open ? el("span", { class: "badge bad", "data-open-disputes": String(open) }, plural(open, "open dispute")) : el("span", { class: "muted" }, "none open")),
        cell("Links", watch, " ", exporter));
    });
    const prev = el("button", { type: "button", disabled: this.cursors.length <= 1 }, "◀ Previous page");
    const next = el("button", { type: "button", disabled: this.next === null }, "Next page ▶");
    const refresh = el("button", { type: "button" }, "Refresh");
    prev.addEventListener("click", () => this.load(-1).catch((err) => this.desk.showError(err.message)));
    next.addEventListener("click", () => this.load(1).catch((err) => this.desk.showError(err.message)));
    refresh.addEventListener("click", () => this.desk.refresh().catch((err) => this.desk.showError(err.message)));
    const headers = ["Match", "Status", "Seats", "Clock", "Disputes", "Links"];
    this.box.replaceChildren(
      matches.length ? el("table", { class: "matches desk-matches" },
        el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows)) : el("p", { class: "muted" }, "No matches yet: create one below."),
      el("div", { class: "pager" }, prev, " ", el("span", { class: "muted" }, `matches ${after + 1}–${after + matches.length}`), " ", next, " ", refresh));
  }

  // Each seat's time left; low ones marked, a paused clock said so.
  clockCell(clock) {
    if (!clock) return el("span", { class: "muted" }, "untimed");
    return el("ul", { class: "clock-list" }, clock.paused ? el("li", { class: "badge delay" }, "paused") : null,
      Object.entries(clock.seats).map(([seat, c]) => {
        const low = isLow(c.remaining_ms, clock.time_control);
        return el("li", { "data-seat": seat, "data-low": low ? "true" : null, class: low ? "low-time" : "" },
          `${seat} ${clockText(c.remaining_ms)}`, c.running && !clock.paused ? " ▸" : "", low ? el("span", { class: "low-mark" }, " low time") : null);
      }));
  }
}

/** The tournament's and each match's downloads, with the command that verifies them offline. */
export function renderExports(box, desk) {
  const zip = el("button", { type: "button", "data-testid": "export-tournament" }, "Download the tournament (zip)");
  const name = `tournament-${desk.tid}`;
  zip.addEventListener("click", async () => {
    zip.disabled = true;
    try {
      await download(`/tournaments/${encodeURIComponent(desk.tid)}/export`, desk.key, `${name}.zip`);
    } catch (err) {
      desk.showError(`Export refused: ${err.message}`);
    } finally {
      zip.disabled = false;
    }
  });
  box.replaceChildren(
    el("p", { class: "export-line" }, zip, " ", el("a", { href: "/.well-known/gambit-signing-key", download: "signing-key.json" }, "the service's signing key (signing-key.json)")),
    el("p", { class: "hint" }, "The zip holds every match's export (", el("code", {}, "<match_id>.ndjson"),
      ", in the organizer's form: sealed secrets of running matches included) and ", el("code", {}, "signing-key.json"),
      ". Check it offline, with no server:"),
    el("pre", { class: "command", "data-testid": "verify-tournament" }, `unzip ${name}.zip -d ${name}\ngambit verify ${name} --key ${name}/signing-key.json`),
    el("p", { class: "hint" }, "A single match: its Export button above saves ", el("code", {}, "<match_id>.ndjson"), "; then"),
    el("pre", { class: "command", "data-testid": "verify-match" }, "gambit verify <match_id>.ndjson --key signing-key.json"),
    el("p", { class: "hint" }, "Keep the key document you verify with from an earlier download: a receipt proves the records only against a key you already trust."));
}
