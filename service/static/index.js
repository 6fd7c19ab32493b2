// The home page: live matches and recent ones, refreshed every few seconds, each linking to /watch/{id}.

import { listMatches } from "./api.js";
import { el } from "./dom.js";

const REFRESH_MS = 10000;
let recentCursor = null;
let pagedOn = false;     // the user loaded more pages: stop refreshing over them

// A one-line outcome ("winners: p1" / "—").
function outcomeText(outcome) {
  if (!outcome) return "—";
  if (Array.isArray(outcome.winners)) return `winners: ${outcome.winners.join(", ") || "none"}`;
  if (outcome.winner) return `winner: ${outcome.winner}`;
  return JSON.stringify(outcome).slice(0, 60);
}

// One table row for a match summary.
function row(match) {
  const link = el("a", { href: `/watch/${encodeURIComponent(match.match_id)}`, class: "watch-link",
                         "data-match": match.match_id }, "Watch");
  return el("tr", { "data-match": match.match_id },
    el("td", {}, link),
    el("td", {}, el("code", { title: match.match_id }, match.match_id.slice(0, 8))),
    el("td", {}, match.ruleset),
    el("td", {}, el("span", { class: `badge status-${match.status}` }, match.status)),
    el("td", {}, `v${match.version}`),
    el("td", {}, match.seats.map((s) => `${s.seat}${s.name ? ` (${s.name})` : ""}`).join(", ")),
    el("td", {}, outcomeText(match.outcome)),
    el("td", { class: "muted" }, match.created_at ? new Date(match.created_at).toLocaleString() : ""));
}

// Fill a table body with rows, or a "none" line.
function fill(table, matches, append = false) {
  const body = table.querySelector("tbody");
  if (!append) body.replaceChildren();
  if (!append && matches.length === 0) body.append(el("tr", {}, el("td", { class: "muted", colspan: "8" }, "none")));
  for (const match of matches) body.append(row(match));
}

// Load both lists (live first).
async function refresh() {
  try {
    const [live, recent] = await Promise.all([listMatches("active"), listMatches(null)]);
    fill(document.querySelector("#live-matches"), live.matches);
    fill(document.querySelector("#recent-matches"), recent.matches);
    recentCursor = recent.next;
    document.querySelector("#more").hidden = !recentCursor;
    document.querySelector("#error").hidden = true;
  } catch (err) {
    const box = document.querySelector("#error");
    box.hidden = false;
    box.textContent = `Could not load matches: ${err.message}`;
  }
}

// Append the next page of recent matches.
async function more() {
  if (!recentCursor) return;
  pagedOn = true;
  const page = await listMatches(null, recentCursor);
  fill(document.querySelector("#recent-matches"), page.matches, true);
  recentCursor = page.next;
  document.querySelector("#more").hidden = !recentCursor;
}

// Wire the "open by id" form and the pager, then load and keep refreshing.
function main() {
  document.querySelector("#open-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = document.querySelector("#open-id").value.trim();
    if (id) window.location.assign(`/watch/${encodeURIComponent(id)}`);
  });
  document.querySelector("#more").addEventListener("click", () => { more(); });
  refresh();
  setInterval(() => { if (!pagedOn) refresh(); }, REFRESH_MS);
}

main();
