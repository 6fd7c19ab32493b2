// Standings and the access trail on the organizer's desk. Standings are per entrant (a seat joined
// without an entrant is its own row), ranked by points, then the Buchholz tie-break, then wins;
// amended outcomes are counted and marked; the CSV is public. The access trail lists every read of
// secrets not yet public (who, which match and resource, when), a page at a time.

import { el, scalar } from "./dom.js";

const TRAIL_PAGE = 50;

// A number as the standings print it (up to 4 places, no trailing zeros).
function number(value) {
  return typeof value === "number" ? String(Math.round(value * 10000) / 10000) : scalar(value);
}

/** The standings table of a tournament body (GET /tournaments/{id}), with the CSV link and the tie-break;
 * `unavailable`, the body's matches that cannot be read now (their partition is down): the standings are null then. */
export function renderStandings(box, tournamentId, standings, unavailable) {
  const csv = `/tournaments/${encodeURIComponent(tournamentId)}/standings.csv`;
  const columns = ["Rank", "Entrant", "Points", "Played", "Wins", "Shared wins", "Losses", "Buchholz", "Amended"];
  const rows = (standings || []).map((row) => el("tr", { "data-entrant": row.entrant_id || null, "data-amended": row.amended ? String(row.amended) : null },
    el("td", { "data-label": "Rank" }, scalar(row.rank)),
    el("td", { "data-label": "Entrant" }, el("strong", {}, scalar(row.name)),
      row.entrant_id ? el("span", { class: "muted" }, ` ${row.entrant_id}`)
        : el("span", { class: "muted" }, ` (seat ${scalar(row.seat)} of ${String(row.match_id || "").slice(0, 8)}, no entrant)`)),
    el("td", { "data-label": "Points" }, number(row.points)),
    el("td", { "data-label": "Played" }, scalar(row.played)),
    el("td", { "data-label": "Wins" }, scalar(row.wins)),
    el("td", { "data-label": "Shared wins" }, scalar(row.shared_wins)),
    el("td", { "data-label": "Losses" }, scalar(row.losses)),
    el("td", { "data-label": "Buchholz" }, number(row.buchholz)),
    el("td", { "data-label": "Amended" }, row.amended ? el("span", { class: "badge delay", title: "matches counted with an outcome amended by a ruling" }, `amended ×${row.amended}`) : "—")));
  box.replaceChildren(
    rows.length ? el("table", { class: "matches standings" },
      el("thead", {}, el("tr", {}, columns.map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows))
      : standings === null
        ? el("p", { class: "muted", "data-testid": "standings-unavailable" }, `No standings while ${(unavailable || []).length} of the matches cannot be read (their partition does not answer): they would be wrong without them.`)
        : el("p", { class: "muted" }, "No finished matches yet."),
    el("p", { class: "hint" }, "Points: a sole win 1, a win shared by k winners 1/k, else 0. Ties are broken by Buchholz (the sum of the final points of every opponent met, once per meeting), then wins, then name. Outcomes amended by a ruling count as amended and are marked."),
    el("p", {}, el("a", { href: csv, download: `standings-${tournamentId}.csv`, "data-testid": "standings-csv" }, "Download the standings (CSV)"),
      el("span", { class: "muted" }, " — public: anyone may publish it.")));
}

/** The access trail, a page at a time (oldest first, as the API serves it). */
export class AccessTrail {
  constructor(box, desk) {
    this.box = box;
    this.desk = desk;
    this.cursors = [0];
    this.next = null;
  }

  /** Read the page shown again (or the next / previous one). */
  async load(step = 0) {
    if (step > 0 && this.next !== null) this.cursors.push(this.next);
    if (step < 0 && this.cursors.length > 1) this.cursors.pop();
    const after = this.cursors[this.cursors.length - 1];
    const page = await this.desk.get(`/tournaments/${encodeURIComponent(this.desk.tid)}/access-log?after=${after}&limit=${TRAIL_PAGE}`);
    this.next = page.next_after;
    const rows = page.entries.map((e) => el("tr", { "data-entry": String(e.entry) },
      el("td", { "data-label": "Entry" }, String(e.entry)),
      el("td", { "data-label": "When" }, new Date(e.at).toLocaleString()),
      el("td", { "data-label": "Who" }, el("code", {}, e.organizer)),
      el("td", { "data-label": "Match" }, el("code", { title: e.match_id }, e.match_id.slice(0, 8)), ` at v${e.match_version}`),
      el("td", { "data-label": "Read" }, e.resource)));
    const prev = el("button", { type: "button", disabled: this.cursors.length <= 1 }, "◀ Earlier");
    const next = el("button", { type: "button", disabled: this.next === null }, "Later ▶");
    prev.addEventListener("click", () => this.load(-1).catch((err) => this.desk.showError(err.message)));
    next.addEventListener("click", () => this.load(1).catch((err) => this.desk.showError(err.message)));
    this.box.replaceChildren(
      el("p", { class: "hint" }, "Every read of a running match's sealed secrets with the organizer key — including this desk's — is recorded before it is answered. Reads after a match has finished are not: everything is public then."),
      rows.length ? el("table", { class: "matches trail", "data-testid": "access-trail" },
        el("thead", {}, el("tr", {}, ["Entry", "When", "Who", "Match", "Read"].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows))
        : el("p", { class: "muted", "data-testid": "access-trail" }, "No reads of sealed secrets recorded."),
      el("div", { class: "pager" }, prev, " ", next));
  }
}
