// The watch page: loads a match, lets the user scrub its versions, follows it live, and opens
// the audit entry of each bluff call, Final Gambit call and dispute.
//
// It never gets stuck: the version on screen is the text of `[data-current-version]`; the live
// stream reconnects after any drop (live.js), and once it is back the page re-reads the summary,
// the records it missed, the view at the newest version, the clock and the seat's moves. LIVE is
// lit only while the stream is connected and the page shows the newest version.

import { ApiError, getAllEvents, getAudit, getFrames, getRuleset, getSummary, readToken, rememberToken } from "./api.js";
import { renderAudit } from "./audit.js";
import { outcomeText } from "./board-parts.js";
import { renderBoard } from "./boards.js";
import { el, plural, shortHex, tree } from "./dom.js";
import { GameLog, markLastMove } from "./gamelog.js";
import { backoffMs, follow } from "./live.js";
import { TurnNotice, announce } from "./notice.js";
import { Play } from "./play.js";
import { Timeline, markersFrom } from "./timeline.js";
import { LogKeeper } from "./tlog-keeper.js";

const CHUNK = 50;
// The first element matching a CSS selector.
const $ = (selector) => document.querySelector(selector);

const page = {
  matchId: decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop()),
  token: null,
  summary: null,
  records: [],          // every record in the viewer's form, index = version - 1
  frames: new Map(),    // version -> replay frame {version, event, view}
  loading: new Map(),   // "from-to" -> pending fetch
  audit: [],
  wanted: 0,            // the version the user asked for last
  following: true,      // jump to new versions as they arrive
  live: null,
  timeline: null,
  generation: 0,        // bumped when the viewer changes, to drop stale responses
  followTimer: null,    // pending "show the newest version" after live records
  catalogue: null,      // the ruleset's public catalogue (card names and text), once loaded
  connection: "connecting", // the live stream: connecting, live, reconnecting, stopped
  failedShow: false,    // the last version asked for could not be loaded (shown again once back)
  showFailures: 0,      // failed loads in a row (the backoff of the next try)
  showRetry: null,      // the timer of the next try
  catchingUp: null,     // the pending fetch of records the stream skipped
  log: null,
  notice: null,
};

// Show an error above the page (null hides it).
function showError(message) {
  const box = $("#error");
  box.hidden = !message;
  box.textContent = message || "";
}

// The latest version known to the page.
function latest() {
  return page.records.length;
}

// Fetch the replay frames around `version` that are not cached yet (aligned chunks, deduplicated).
async function ensureFrame(version) {
  if (page.frames.has(version)) return page.frames.get(version);
  const alignedStart = Math.floor((version - 1) / CHUNK) * CHUNK + 1;
  let start = alignedStart;
  while (start < version && page.frames.has(start)) start += 1;
  const end = Math.min(alignedStart + CHUNK - 1, latest());
  const key = `${start}-${end}`;
  if (!page.loading.has(key)) {
    const generation = page.generation;
    const pending = getFrames(page.matchId, page.token, start, end).then((frames) => {
      if (generation === page.generation) for (const frame of frames) page.frames.set(frame.version, frame);
    }).finally(() => {
      if (page.loading.get(key) === pending) page.loading.delete(key);
    });
    page.loading.set(key, pending);
  }
  await page.loading.get(key);
  return page.frames.get(version);
}

// Go to a version: fetch its frame and draw it (a later request wins over an earlier one).
async function show(version) {
  page.wanted = version;
  page.following = version >= latest();
  page.timeline.show(version);
  updateNewBadge();
  updateLive();
  let frame;
  try {
    frame = await ensureFrame(version);
  } catch (err) {
    // Not an error to keep: the page asks again (with backoff) until the server answers.
    page.failedShow = true;
    page.showFailures += 1;
    renderConnection(`version ${version} could not be loaded: ${err.message}`);
    clearTimeout(page.showRetry);
    page.showRetry = setTimeout(() => { if (page.failedShow) show(page.wanted); }, backoffMs(page.showFailures));
    if (page.live) page.live.wake();
    return;
  }
  if (page.wanted !== version || !frame) return;
  page.failedShow = false;
  page.showFailures = 0;
  renderConnection();
  draw(frame);
}

// The live stream's state changed (connecting, live, reconnecting, stopped).
function setConnection(state) {
  page.connection = state;
  renderConnection();
}

// The connection as the page shows it (the stream's state, or reconnecting while a read fails):
// the root's data-connection (the clock reads it), the reconnecting line, the play panel, LIVE.
function renderConnection(why = "") {
  const state = page.failedShow ? "reconnecting" : page.connection;
  $("#watch").dataset.connection = state;
  const box = $("#connection");
  box.hidden = state !== "reconnecting";
  if (state === "reconnecting") box.textContent = `Reconnecting…${why ? ` (${why})` : ""} The page catches up by itself.`;
  page.play.setConnection(state);
  updateLive();
}

// LIVE only while the stream is connected and the newest version is on screen.
function updateLive() {
  const badge = $("#live");
  const finished = page.summary && page.summary.status === "finished";
  const atEnd = page.wanted >= latest();
  let state = "off";
  if (!finished && page.live) {
    if (page.failedShow || page.connection === "reconnecting" || page.connection === "connecting") state = "reconnecting";
    else if (page.connection === "live") state = atEnd ? "live" : "behind";
  }
  badge.hidden = state === "off";
  badge.dataset.state = state;
  badge.textContent = { live: "● LIVE", behind: "○ not at the latest version", reconnecting: "○ reconnecting…" }[state] || "";
}

// Back after a failure: read again what the page may have missed, then show the newest version.
async function resync() {
  const generation = page.generation;
  await refreshSummary();
  await catchUp();
  if (generation !== page.generation) return;
  // The newest frame may have been read before the failure: its view and clock are read again.
  page.frames.delete(latest());
  refreshAudit().catch(() => {});
  if (page.following || page.failedShow) await show(page.following ? latest() : page.wanted);
  page.play.refresh();
}

// Draw one frame: the board, the event of that version, the view JSON for tests and humans.
function draw(frame) {
  const view = frame.view;
  renderBoard($("#board"), page.summary.ruleset, view, { catalogue: page.catalogue });
  // /view and the summary say how far a delayed spectator is held back (replay frames do not).
  renderDelay(view.delay || page.summary.delay);
  renderEvent(frame.event);
  renderInfo(view);
  $("#view-json").textContent = JSON.stringify(view);
  $("#view-pretty").textContent = JSON.stringify(view, null, 2);
  $("#viewer").textContent = `viewing as ${view.viewer}`;
  const root = $("#watch");
  root.dataset.version = String(frame.version);
  root.dataset.viewer = view.viewer;
  root.dataset.state = "ready";
  $("[data-current-version]").textContent = String(frame.version);
  page.log.show(frame.version);
  markLastMove($("#board"), page.log.lastMove(frame.version).marks);
  updateLive();
  page.play.onDraw(frame);
}

// The match facts beside the board: seats, who acts, status and outcome at this version.
function renderInfo(view) {
  const s = page.summary;
  const seats = el("ul", { class: "seats" }, s.seats.map((seat) => el("li", {},
    el("strong", {}, seat.seat), ` ${seat.name || (seat.joined ? "" : "(open)")}`,
    (view.to_act || []).includes(seat.seat) ? el("span", { class: "to-move" }, " · to act") : "")));
  $("#match-info").replaceChildren(
    el("h2", {}, "Match"),
    el("dl", { class: "facts" },
      el("dt", {}, "ruleset"), el("dd", {}, s.ruleset),
      el("dt", {}, "status here"), el("dd", {}, view.status),
      el("dt", {}, "outcome"), el("dd", {}, view.outcome ? outcomeText(view.outcome) : "—"),
      el("dt", {}, "seed commitment"), el("dd", {}, shortHex(s.server_seed_commitment)),
      el("dt", {}, "created"), el("dd", {}, s.created_at ? new Date(s.created_at).toLocaleString() : "—")),
    seats);
}

// The "delayed by N records" badge of a delayed spectator (hidden when the view is not delayed).
function renderDelay(delay) {
  let badge = $("[data-testid=spectator-delay]");
  if (!badge) {
    badge = el("span", { class: "badge delay", "data-testid": "spectator-delay", role: "status",
                         title: "Spectators see this match some records behind while it runs" });
    $("#viewer").after(badge);
  }
  const records = delay && Number.isInteger(delay.records) ? delay.records : 0;
  badge.hidden = records <= 0;
  badge.textContent = records > 0 ? `delayed by ${plural(records, "record")}` : "";
}

// The record of the shown version: kind, time, public part, and its secret or commitment.
function renderEvent(record) {
  const box = $("#event");
  box.replaceChildren(el("h2", {}, `v${record.version} · ${record.kind}`),
    el("p", { class: "muted" }, new Date(record.timestamp).toLocaleString()),
    tree(record.public || {}));
  if (record.commitment) {
    box.append(el("h3", {}, "Secret"), record.secret !== undefined
      ? el("div", {}, tree(record.secret), el("p", { class: "muted" }, "salt ", shortHex(record.salt)))
      : el("p", { class: "muted" }, `hidden from this viewer (audience: ${(record.audience || []).join(", ") || "organizers"}) · commitment `,
        shortHex(record.commitment)));
  }
  box.append(el("p", { class: "muted" }, "chain ", shortHex(record.chain)));
}

// The "N new versions" hint when the user is behind a live match.
function updateNewBadge() {
  const badge = $("#new-versions");
  const behind = latest() - page.wanted;
  badge.hidden = !(page.live && behind > 0);
  badge.textContent = `${behind} new — End to catch up`;
}

// Open the audit entry a marker points at (the call it is about, for a dispute).
function openMarker(marker) {
  show(marker.version);
  const callVersion = marker.callVersion;
  const entry = page.audit.find((c) => c.call_version === callVersion || c.ruling_version === callVersion) || null;
  const disputes = page.records.filter((r) => ["DisputeFiled", "DisputeRuled", "OutcomeAmended"].includes(r.kind)
    && r.public && entry && (r.public.call_version === entry.call_version || r.public.call_version === entry.ruling_version))
    .map((r) => ({ version: r.version, kind: r.kind, ...r.public }));
  renderAudit($("#audit"), { entry, marker, disputes, onClose: () => { $("#audit").hidden = true; } });
}

// Refresh the summary header (status, title).
async function refreshSummary() {
  page.summary = await getSummary(page.matchId, page.token);
  const s = page.summary;
  $("#title").textContent = `${s.ruleset} · ${s.match_id.slice(0, 8)}`;
  page.notice.setBase(`${s.ruleset} ${s.match_id.slice(0, 8)} · Gambit`);
  const status = $("#status");
  status.textContent = s.status;
  status.className = `badge status-${s.status}`;
  page.play.setSummary(s, page.token);
}

// Load the ruleset's catalogue once (card names and text); a board without it shows card ids.
async function loadCatalogue() {
  if (page.catalogue) return;
  try {
    page.catalogue = (await getRuleset(page.summary.ruleset)).catalogue || null;
  } catch (err) {
    console.warn(`no catalogue for ${page.summary.ruleset}: ${err.message}`);
  }
}

// Refresh the audit entries and the timeline markers.
async function refreshAudit() {
  page.audit = (await getAudit(page.matchId, page.token)).calls;
  page.timeline.setMarkers(markersFrom(page.records));
}

// Fetch the records between the newest the page holds and what the server has (one fetch at a time).
function catchUp() {
  if (!page.catchingUp) {
    const generation = page.generation;
    page.catchingUp = getAllEvents(page.matchId, page.token, latest())
      .then(async (records) => {
        if (generation !== page.generation) return;
        for (const record of records) await onRecord(record, false);
      })
      .finally(() => { page.catchingUp = null; });
  }
  return page.catchingUp;
}

// A record arrived (over SSE, or fetched to fill a gap): extend the timeline, log it, follow it.
async function onRecord(record, live = true) {
  if (record.version <= latest()) return;
  if (record.version > latest() + 1) {
    // A gap (records the stream skipped): fetch them; this record comes with them.
    await catchUp();
    return;
  }
  page.records.push(record);
  const sentence = page.log.add(record);
  if (live) announce(sentence);
  page.timeline.setLatest(latest());
  $("#watch").dataset.latest = String(latest());
  page.play.onRecord(record);
  const p = record.public || {};
  if (p.bluff_call || ["FinalGambitCalled", "DisputeFiled", "DisputeRuled", "OutcomeAmended"].includes(record.kind)) {
    page.timeline.setMarkers(markersFrom(page.records));
    refreshAudit().catch(() => {});
  }
  if (["SeatJoined", "MatchFinished", "OutcomeAmended"].includes(record.kind)) refreshSummary().catch(() => {});
  if (record.kind === "MatchFinished") {
    // Everything is public now: reload in the revealed form.
    await reload(latest());
    return;
  }
  scheduleFollow();
}

// Show the newest version soon if the user is following (one fetch for a burst of records).
function scheduleFollow() {
  if (page.followTimer) return;
  page.followTimer = setTimeout(() => {
    page.followTimer = null;
    if (page.following && !page.timeline.playing) show(latest());
    else updateNewBadge();
  }, 40);
}

// Start following the match live while it is not finished.
function startLive() {
  if (page.live) page.live.stop();
  page.live = null;
  if (page.summary.status === "finished") {
    page.timeline.waitAtEnd = false;
    setConnection("stopped");
    return;
  }
  page.timeline.waitAtEnd = true;
  let live = null;
  live = follow(page.matchId, page.token, () => latest(), {
    onRecord: (record) => { onRecord(record).catch((err) => console.warn(`record v${record.version}: ${err.message}`)); },
    onEnd: () => { page.timeline.waitAtEnd = false; },
    onState: (state) => {
      // A follower this page stopped (the viewer changed) has no say any more.
      if (live !== null && page.live !== live) return;
      setConnection(state);
    },
    onResume: () => { resync().catch((err) => console.warn(`catching up: ${err.message}`)); },
    onError: (err) => showError(`Live updates stopped: ${err.message}`),
  });
  page.live = live;
  setConnection(live.state || "connecting");
}

// (Re)load everything for the current viewer, then show `version` (the latest by default).
async function reload(version = null) {
  page.generation += 1;
  page.frames.clear();
  page.loading.clear();
  await refreshSummary();
  await loadCatalogue();
  const records = await getAllEvents(page.matchId, page.token);
  await page.log.setGame(page.summary.ruleset);
  page.records = records;
  page.log.reset(records, page.summary, page.catalogue, page.token ? null : "spectator");
  page.timeline.setLatest(latest());
  $("#watch").dataset.latest = String(latest());
  await refreshAudit();
  startLive();
  await show(Math.min(version || latest(), latest()));
}

// Switch the viewer (a token, or null for spectator) and reload; `notice` is shown above the page.
async function useToken(token, notice = null) {
  page.token = token || null;
  rememberToken(page.matchId, page.token);
  page.keeper.setSeat(page.token, null); // the seat is known once its moves are read
  $("#token-clear").hidden = !page.token;
  $("#audit").hidden = true;
  showError(notice);
  try {
    // A page that was following the newest version keeps following it as the new viewer.
    await reload(page.following ? null : page.wanted || null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && page.token) {
      await useToken(null, "That token is not valid for this match; showing the spectator view.");
      return;
    }
    throw err;
  }
}

// Records that begin a write of their own (docs/verification.md, "Commands and what caused every record"): the
// setup's events that follow the last join are in the join's write; the next of these begins another.
const WRITE_STARTS = new Set(["SeatJoined", "CommandReceived", "SeatKeyChanged", "ClockExpired", "DisputeFiled",
  "DisputeRuled", "ClockPaused", "ClockResumed", "TimeAdded"]);

// The version a seat's join write ends at (its receipt's): the record before the next write's first, or the newest
// the page holds; asked for alone, so the page never asks for a receipt of a version no write ended at.
function joinWrite(seat) {
  const records = page.records || [];
  const joined = records.find((r) => r.kind === "SeatJoined" && r.public && r.public.seat === seat);
  if (!joined) return null;
  const next = records.find((r) => r.version > joined.version && WRITE_STARTS.has(r.kind));
  const end = next ? next.version - 1 : latest();
  return { first: end, last: end };
}

// Page start: wire the timeline and the token form, then load the match.
async function main() {
  page.timeline = new Timeline($("#timeline"), { onSeek: (v) => show(v), onMarker: openMarker });
  page.notice = new TurnNotice($(".topbar"));
  page.log = new GameLog($("#log"), { onPick: (v) => { page.timeline.pause(); page.timeline.show(v); show(v); } });
  page.keeper = new LogKeeper($("#log-keeper"), { matchId: page.matchId, joinedAt: joinWrite });
  page.play = new Play($("#play"), {
    matchId: page.matchId, board: $("#board"), useToken: (token) => useToken(token),
    commitmentAt: (version) => (page.records[version - 1] || {}).commitment,
    describe: (record) => page.log.sentence(record),
    onTurn: (mine) => page.notice.setTurn(mine),
    onSeat: (token, seat) => page.keeper.setSeat(token, seat),
    onReceipt: (receipt, seat) => page.keeper.keepReceipt(receipt, seat),
    onJoined: (receipt, seat) => page.keeper.keepReceipt(receipt, seat, { join: true }),
  });
  $("#token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("#token-input");
    const token = input.value.trim();
    input.value = "";
    useToken(token || null).catch((err) => showError(err.message));
  });
  $("#token-clear").addEventListener("click", () => useToken(null).catch((err) => showError(err.message)));
  const fragment = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const at = Number(fragment.get("v")) || null;
  try {
    await useToken(readToken(page.matchId));
    if (at) await show(Math.min(at, latest()));
    page.keeper.start();
  } catch (err) {
    showError(err instanceof ApiError && err.status === 404 ? "There is no such match." : `Could not load the match: ${err.message}`);
    $("#watch").dataset.state = "error";
  }
}

main();
