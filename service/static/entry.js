// An entrant's page (`/entry/<tid>#invite=…`): the matches the entrant is paired to, each with a button
// that opens the seat page `/watch/<match_id>#invite=…`, where the seat is taken with the invite.
// The invite is kept in this tab's session storage and sent only as `Authorization: Bearer`.

import { ApiError, getJSON } from "./api.js";
import { readInvite, rememberInvite } from "./credentials.js";
import { el } from "./dom.js";

// The first element matching a CSS selector.
const $ = (selector) => document.querySelector(selector);
const tournamentId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop());

// Show an error above the page (null hides it).
function showError(message) {
  $("#error").hidden = !message;
  $("#error").textContent = message || "";
}

// One match of the entrant: its game, seat and status, and the way to its seat page.
function matchRow(match, invite) {
  const watch = `/watch/${encodeURIComponent(match.match_id)}`;
  const action = match.joined
    ? el("a", { href: watch, class: "button-link" }, "Open the match")
    : el("button", { type: "button", class: "take-seat", "data-match": match.match_id }, `Take seat ${match.seat}`);
  if (!match.joined) {
    // The invite rides in the fragment, which the browser never sends to the server.
    action.addEventListener("click", () => window.location.assign(`${watch}#invite=${encodeURIComponent(invite)}`));
  }
  return el("tr", { "data-match": match.match_id, "data-joined": String(match.joined) },
    el("td", { "data-label": "Match" }, el("code", { title: match.match_id }, match.match_id.slice(0, 8))),
    el("td", { "data-label": "Game" }, match.ruleset),
    el("td", { "data-label": "Seat" }, match.seat),
    el("td", { "data-label": "Status" }, el("span", { class: `badge status-${match.status}` }, match.status), match.joined ? " · joined" : ""),
    el("td", { "data-label": "Play" }, action));
}

// Load the entrant's matches with an invite (401: the invite is not valid, or was replaced).
async function load(invite) {
  if (!invite) {
    $("#entry").dataset.state = "needs-invite";
    return;
  }
  let entry;
  try {
    entry = await getJSON(`/tournaments/${encodeURIComponent(tournamentId)}/entry`, invite);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      rememberInvite(tournamentId, null);
      showError("This invite is not valid for this tournament (it may have been replaced by a newer one: ask the organizer).");
      $("#entry").dataset.state = "needs-invite";
      return;
    }
    throw err;
  }
  rememberInvite(tournamentId, invite);
  showError(null);
  $("#title").textContent = `${entry.tournament_name} · ${entry.entrant.name}`;
  document.title = `${entry.entrant.name} · ${entry.tournament_name} · Gambit`;
  $("#entrant").replaceChildren(el("strong", {}, entry.entrant.name), el("span", { class: "muted" }, ` (${entry.entrant.entrant_id}) in ${entry.tournament_name}`));
  $("#entry-matches").replaceChildren(entry.matches.length
    ? el("table", { class: "matches" },
      el("thead", {}, el("tr", {}, ["Match", "Game", "Seat", "Status", "Play"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, entry.matches.map((m) => matchRow(m, invite))))
    : el("p", { class: "muted" }, "You are not paired to a match yet. Come back once the organizer has paired you."));
  $("#entry").dataset.state = "ready";
}

// Page start: the invite form, then the invite from the fragment or this tab's session.
function main() {
  $("#invite-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("#invite-input");
    const invite = input.value.trim();
    input.value = "";
    load(invite || null).catch((err) => showError(`Could not load your matches: ${err.message}`));
  });
  load(readInvite(tournamentId)).catch((err) => showError(`Could not load your matches: ${err.message}`));
}

main();
