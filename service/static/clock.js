// The match clock in the viewer (docs/clocks.md): each seat's time left at the version shown,
// counting down live at the latest version while a seat's clock runs.
//
// It reads what the page already shows: the view of the version on screen (`#view-json`, written
// by watch.js for every frame) carries `clock`. Only the live countdown needs the server's time:
// it is taken from the `Date` header of the public clock resource, so a wrong clock on this
// computer does not make a seat look out of time.
//
// A clock counts down only while the page is connected and shows the newest version: a page that
// lost its connection shows each seat's time as of the version on screen, running for nobody, so it
// never runs the clock of a seat whose turn may be over. A seat low on time (under 10% of its time,
// or under 30 s) is marked `low` and announced once through the live region.

import { announce } from "./notice.js";

const root = document.getElementById("watch");
const source = document.getElementById("view-json");
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");

let shown = null;       // the clock of the version on screen (null: untimed)
let serverOffset = 0;   // server time minus this computer's time, in ms
let offsetFor = null;   // the latest version the offset was measured at
const lowSeats = new Set();  // the seats already announced as low on time

const panel = document.createElement("section");
panel.id = "clock";
panel.className = "panel clock";
panel.setAttribute("aria-label", "Clock");
panel.hidden = true;
const side = document.querySelector("aside.side");
if (side) side.insertBefore(panel, document.getElementById("match-info"));

/** "4:05", "1:02:03", "0:00" for a number of milliseconds (never negative). */
function formatMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

function controlText(control) {
  if (!control) return "";
  if (control.kind === "fischer") return `Fischer ${formatMs(control.initial_s * 1000)} + ${control.increment_s} s`;
  if (control.kind === "per_decision") return `${control.per_decision_s} s per decision`;
  return control.kind;
}

/** Whether the clock may count down: the newest version on screen and the connection up. */
function atLatest() {
  return root && root.dataset.version !== "" && root.dataset.version === root.dataset.latest
    && root.dataset.connection !== "reconnecting";
}

/** The time under which a seat is low: 10% of its control's time, or 30 s (a quarter, for a short control). */
export function lowThresholdMs(control) {
  if (!control) return 30000;
  const base = control.kind === "fischer" ? control.initial_s * 1000
    : control.kind === "per_decision" ? control.per_decision_s * 1000 : 0;
  if (!base) return 30000;
  return Math.max(base * 0.1, Math.min(30000, base * 0.25));
}

/** A seat's time left now: counted down from its deadline at the latest version, else as of the version shown. */
function remaining(seatClock) {
  if (seatClock.running && seatClock.deadline && atLatest() && !shown.paused) {
    // The server's time is known to a second at best (the Date header): a running clock never
    // shows more than the time left the server reported, only less as it runs.
    return Math.min(seatClock.remaining_ms, Date.parse(seatClock.deadline) - (Date.now() + serverOffset));
  }
  return seatClock.remaining_ms;
}

function render() {
  if (!shown) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const title = document.createElement("h2");
  title.textContent = shown.paused ? "Clock · paused" : "Clock";
  const control = document.createElement("p");
  control.className = "muted";
  control.textContent = controlText(shown.time_control);
  const list = document.createElement("dl");
  for (const [seat, seatClock] of Object.entries(shown.seats)) {
    const name = document.createElement("dt");
    name.textContent = seat;
    const time = document.createElement("dd");
    const left = remaining(seatClock);
    const counting = seatClock.running && !shown.paused && atLatest();
    time.textContent = formatMs(left) + (counting ? " · running" : "");
    const low = left > 0 && left <= lowThresholdMs(shown.time_control);
    time.classList.toggle("low", low);
    if (low && counting && !lowSeats.has(seat)) {
      lowSeats.add(seat);
      announce(`${seat} is low on time: ${formatMs(left)} left.`);
    } else if (!low) {
      lowSeats.delete(seat);
    }
    time.dataset.seat = seat;
    time.dataset.running = String(Boolean(seatClock.running));
    time.dataset.counting = String(counting);
    time.dataset.remainingMs = String(Math.max(0, Math.round(left)));
    if (seatClock.running && left <= 0) time.dataset.out = "true";
    list.append(name, time);
  }
  panel.replaceChildren(title, control, list);
}

/** Measure the server's time once per new latest version (the `Date` header of the clock resource). */
async function measureOffset() {
  if (!matchId || !root || root.dataset.latest === offsetFor) return;
  offsetFor = root.dataset.latest;
  try {
    const sent = Date.now();
    const response = await fetch(`/matches/${encodeURIComponent(matchId)}/clock`, { cache: "no-store" });
    const date = Date.parse(response.headers.get("Date") || "");
    if (!Number.isNaN(date)) serverOffset = date + 500 - (sent + Date.now()) / 2;  // Date has whole seconds
  } catch {
    // Offline or refused: count down with this computer's time.
  }
}

function readView() {
  try {
    const view = JSON.parse(source.textContent || "null");
    shown = view && view.clock ? view.clock : null;
  } catch {
    shown = null;
  }
  render();
  if (shown && atLatest()) measureOffset();
}

if (source) {
  new MutationObserver(readView).observe(source, { childList: true, characterData: true, subtree: true });
  readView();
  // The connection going down stops the countdown at once, not at the next version.
  if (root) new MutationObserver(render).observe(root, { attributes: true, attributeFilter: ["data-connection"] });
  setInterval(() => {
    if (shown && atLatest()) render();
  }, 250);
}
