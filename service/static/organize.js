// The organizer's desk (`/organize/<tid>`, root `data-page="organizer-desk"`): matches at a glance,
// the dispute desk, entrants, standings, new matches, exports and the access trail of one tournament.
// The organizer key comes from the fragment (#key=…) or the form, stays in this tab's session storage,
// is removed from the address bar and is sent only as `Authorization: Bearer` — never in a URL.

import { ApiError, getJSON } from "./api.js";
import { download, readOrganizerKey, rememberOrganizerKey } from "./credentials.js";
import { DisputeDesk } from "./desk-disputes.js";
import { Entrants } from "./desk-entrants.js";
import { MatchBoard, renderExports } from "./desk-matches.js";
import { AccessTrail, renderStandings } from "./desk-standings.js";
import { MatchForm } from "./match-form.js";

const REFRESH_MS = 15000;
// The first element matching a CSS selector.
const $ = (selector) => document.querySelector(selector);

const desk = {
  tid: decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop()),
  key: null,
  tournament: null,
  /** GET a resource with the organizer key. */
  get: (path) => getJSON(path, desk.key),
  showError,
  openDisputes: () => parts.disputes.openCounts(),
  entrantNames: () => new Map(parts.entrants.entrants.map((e) => [e.entrant_id, e.name])),
  refresh,
  exportMatch,
};
const parts = {};
let timer = null;

// Show an error above the desk (null hides it).
function showError(message) {
  const box = $("#error");
  box.hidden = !message;
  box.textContent = message || "";
}

// Download one match's export in the organizer's form (the key in the header, the file saved locally).
async function exportMatch(matchId, button) {
  button.disabled = true;
  try {
    await download(`/matches/${encodeURIComponent(matchId)}/export`, desk.key, `${matchId}.ndjson`);
  } catch (err) {
    showError(`Export refused: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

/** Read everything the desk shows again: disputes first (the matches table counts them), then the rest. */
async function refresh() {
  await parts.disputes.load();
  await parts.entrants.load().catch((err) => {
    // An older service without entrants: the rest of the desk still works.
    if (!(err instanceof ApiError && (err.status === 404 || err.status === 405))) throw err;
  });
  const tournament = await parts.matches.load();
  $("#title").textContent = `Organizer's desk · ${tournament.name}`;
  document.title = `Desk · ${tournament.name} · Gambit`;
  renderStandings($("#standings"), desk.tid, tournament.standings, tournament.unavailable);
  await parts.trail.load();
  parts.form.drawSeats();
  $("#desk").dataset.state = "ready";
}

// Open the desk with a key: check it on the organizer-only dispute queue, then draw every section.
async function open(key) {
  desk.key = key;
  $("#key-forget").hidden = !key;
  if (!key) {
    $("#key-needed").hidden = false;
    $("#desk-sections").hidden = true;
    $("#desk").dataset.state = "needs-key";
    return;
  }
  try {
    await getJSON(`/tournaments/${encodeURIComponent(desk.tid)}/disputes?limit=1`, key);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      rememberOrganizerKey(desk.tid, null);
      desk.key = null;
      showError("That is not this tournament's organizer key.");
      await open(null);
      return;
    }
    throw err;
  }
  rememberOrganizerKey(desk.tid, key);
  showError(null);
  $("#key-needed").hidden = true;
  $("#desk-sections").hidden = false;
  parts.disputes = new DisputeDesk($("#dispute-queue"), $("#dispute-detail"), desk);
  parts.entrants = new Entrants($("#entrants"), desk);
  parts.matches = new MatchBoard($("#matches"), desk);
  parts.trail = new AccessTrail($("#trail"), desk);
  parts.form = new MatchForm($("#create-match"), {
    tournamentId: desk.tid, key, entrants: () => parts.entrants.entrants,
    onCreated: () => refresh().catch((err) => showError(err.message)),
  });
  renderExports($("#export"), desk);
  await parts.form.start();
  await refresh();
  clearInterval(timer);
  // The glance refreshes itself; an open dispute is left as it is until its next action.
  timer = setInterval(() => {
    if (!document.hidden && desk.key) {
      parts.disputes.load().then(() => parts.matches.load()).catch((err) => showError(`Could not refresh: ${err.message}`));
    }
  }, REFRESH_MS);
}

// Page start: the key form, then the key from the fragment or this tab's session.
async function main() {
  $("#key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("#key-input");
    const key = input.value.trim();
    input.value = "";
    open(key || null).catch((err) => showError(err.message));
  });
  $("#key-forget").addEventListener("click", () => {
    rememberOrganizerKey(desk.tid, null);
    clearInterval(timer);
    open(null).catch((err) => showError(err.message));
  });
  try {
    await open(readOrganizerKey(desk.tid));
  } catch (err) {
    showError(err instanceof ApiError && err.status === 404 ? "There is no such tournament." : `Could not load the desk: ${err.message}`);
    $("#desk").dataset.state = "error";
  }
}

main();
