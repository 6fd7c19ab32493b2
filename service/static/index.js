// The home page: live matches, then the others (open and finished), each listed once, refreshed
// every few seconds, each linking to /watch/{id}.

import { listMatches } from "./api.js";
import { outcomeText } from "./board-parts.js";
import { el } from "./dom.js";
import { MatchForm } from "./match-form.js";

const REFRESH_MS = 10000;
const COLUMNS = ["", "Match", "Game", "Status", "Version", "Seats", "Outcome", "Created"];
// A page of "recent" can be all live matches (listed above); read on a little to fill it.
const MAX_PAGES_PER_FILL = 4;

const lists = {
  live: { table: "#live-matches", more: "#more-live", status: "active", cursor: null },
  recent: { table: "#recent-matches", more: "#more", status: null, cursor: null },
};
const listed = new Set();  // match ids on the page: a match is listed once
let pagedOn = false;       // the user loaded more pages: stop refreshing over them

// A table cell labelled with its column (the label shows where a narrow screen stacks the cells).
function cell(column, ...children) {
  return el("td", { "data-label": COLUMNS[column] }, ...children);
}

// One table row for a match summary.
function row(match) {
  const link = el("a", { href: `/watch/${encodeURIComponent(match.match_id)}`, class: "watch-link",
                         "data-match": match.match_id }, "Watch");
  return el("tr", { "data-match": match.match_id },
    cell(0, link),
    cell(1, el("code", { title: match.match_id }, match.match_id.slice(0, 8))),
    cell(2, match.ruleset),
    cell(3, el("span", { class: `badge status-${match.status}` }, match.status)),
    cell(4, `v${match.version}`),
    cell(5, match.seats.map((s) => `${s.seat}${s.name ? ` (${s.name})` : ""}`).join(", ")),
    cell(6, outcomeText(match.outcome)),
    el("td", { class: "muted", "data-label": COLUMNS[7] }, match.created_at ? new Date(match.created_at).toLocaleString() : ""));
}

// Append the matches not listed yet to a list's table; a fresh fill first empties it.
function fill(list, matches, { fresh }) {
  const body = document.querySelector(list.table).querySelector("tbody");
  if (fresh) body.replaceChildren();
  for (const match of matches) {
    if (listed.has(match.match_id)) continue;
    listed.add(match.match_id);
    body.append(row(match));
  }
  if (!body.querySelector("tr[data-match]")) {
    body.replaceChildren(el("tr", { class: "none" }, el("td", { class: "muted", colspan: String(COLUMNS.length) }, "none")));
  } else {
    body.querySelector("tr.none")?.remove();
  }
}

// Read a list's next pages (a page of "recent" may hold only live matches) and show what is new.
async function load(list, { fresh }) {
  let pages = 0;
  let added = 0;
  let after = fresh ? null : list.cursor;
  do {
    const page = await listMatches(list.status, after);
    // Live matches belong to the live list, even when the other list's page has them too.
    const matches = list === lists.recent ? page.matches.filter((m) => m.status !== "active") : page.matches;
    added += matches.filter((m) => !listed.has(m.match_id)).length;
    fill(list, matches, { fresh: fresh && pages === 0 });
    after = page.next;
    pages += 1;
  } while (after && added < 10 && pages < MAX_PAGES_PER_FILL);
  list.cursor = after;
  document.querySelector(list.more).hidden = !after;
}

// Reload both lists (live first, so a live match is listed there).
async function refresh() {
  try {
    listed.clear();
    await load(lists.live, { fresh: true });
    await load(lists.recent, { fresh: true });
    document.querySelector("#error").hidden = true;
  } catch (err) {
    const box = document.querySelector("#error");
    box.hidden = false;
    box.textContent = `Could not load matches: ${err.message}`;
  }
}

// Wire the "open by id" form and the pagers, then load and keep refreshing.
function main() {
  document.querySelector("#open-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = document.querySelector("#open-id").value.trim();
    if (id) window.location.assign(`/watch/${encodeURIComponent(id)}`);
  });
  for (const list of Object.values(lists)) {
    document.querySelector(list.more).addEventListener("click", () => {
      pagedOn = true;
      load(list, { fresh: false }).catch((err) => {
        const box = document.querySelector("#error");
        box.hidden = false;
        box.textContent = `Could not load more matches: ${err.message}`;
      });
    });
  }
  // The create form is built on request: it reads every ruleset's declarations.
  document.querySelector("#create-open").addEventListener("click", () => {
    new MatchForm(document.querySelector("#create-match"), { onCreated: () => refresh() }).start().catch((err) => {
      const box = document.querySelector("#error");
      box.hidden = false;
      box.textContent = `Could not load the games: ${err.message}`;
    });
  });
  refresh();
  setInterval(() => { if (!pagedOn) refresh(); }, REFRESH_MS);
}

main();
