// The timeline: a slider over every version, step/jump buttons, play/pause at a chosen speed,
// keyboard shortcuts, and markers for bluff calls, Final Gambit calls and disputes.

import { callKind, callSentence } from "./calls.js";
import { el } from "./dom.js";

export const SPEEDS = [0.5, 1, 2, 4, 8, 16];

/** Markers of a match from its records: [{version, type: bluff|reveal|final|dispute, callVersion, label}]. */
export function markersFrom(records) {
  const out = new Map();
  const byVersion = new Map(records.map((r) => [r.version, r]));
  // Add one marker unless one of the same type is already at that version.
  const add = (marker) => {
    const key = `${marker.type}@${marker.version}`;
    if (!out.has(key)) out.set(key, marker);
  };
  const disputedCall = new Map();  // dispute number -> the call it is about (an amended outcome names only the dispute)
  for (const record of records) {
    const call = record.public && record.public.bluff_call;
    if (call && typeof call === "object") {
      const at = Number.isInteger(call.call_version) ? call.call_version : record.version;
      const called = byVersion.get(at);
      const kind = callKind(call);
      const final = kind === "final" || (called && called.kind === "FinalGambitCalled");
      // Only a called claim is a bluff call; a guess or a sealed play revealed gets its own marker.
      const type = final ? "final" : kind === "bluff" ? "bluff" : "reveal";
      add({ version: at, type, callVersion: at, label: `v${at} · ${callSentence(call)}` });
    }
    if (record.kind === "FinalGambitCalled") {
      add({ version: record.version, type: "final", callVersion: record.version,
            label: `v${record.version} · Final Gambit called by ${record.public.seat || "?"}` });
    }
    if (["DisputeFiled", "DisputeRuled", "OutcomeAmended"].includes(record.kind)) {
      const p = record.public || {};
      const what = record.kind === "DisputeFiled" ? `dispute ${p.dispute} filed by ${p.filed_by}`
        : record.kind === "DisputeRuled" ? `dispute ${p.dispute} ruled: ${p.decision}` : `outcome amended (dispute ${p.dispute})`;
      if (Number.isInteger(p.call_version)) disputedCall.set(p.dispute, p.call_version);
      add({ version: record.version, type: "dispute", callVersion: p.call_version ?? disputedCall.get(p.dispute) ?? null,
            label: `v${record.version} · ${what}` });
    }
  }
  return [...out.values()].sort((a, b) => a.version - b.version);
}

/** The timeline widget; `onSeek(version)` is called when the user moves to a version. */
export class Timeline {
  // Wire the controls found in `root` (see watch.html) and the keyboard.
  constructor(root, { onSeek, onMarker }) {
    this.root = root;
    this.onSeek = onSeek;
    this.onMarker = onMarker;
    this.latest = 1;
    this.value = 1;
    this.speed = 1;
    this.playing = false;
    this.timer = null;
    this.markers = [];
    this.slider = root.querySelector("#tl-slider");
    this.markerBox = root.querySelector("#tl-markers");
    this.playButton = root.querySelector("#tl-play");
    this.speedSelect = root.querySelector("#tl-speed");
    this.slider.addEventListener("input", () => this.seek(Number(this.slider.value)));
    root.querySelector("#tl-first").addEventListener("click", () => this.seek(1));
    root.querySelector("#tl-prev").addEventListener("click", () => this.step(-1));
    root.querySelector("#tl-next").addEventListener("click", () => this.step(1));
    root.querySelector("#tl-last").addEventListener("click", () => this.seek(this.latest));
    this.playButton.addEventListener("click", () => this.toggle());
    this.speedSelect.addEventListener("change", () => this.setSpeed(Number(this.speedSelect.value)));
    document.addEventListener("keydown", (event) => this.key(event));
  }

  // Move to a version (clamped) and tell the page.
  seek(version) {
    const v = Math.max(1, Math.min(this.latest, Math.round(version)));
    this.show(v);
    this.onSeek(v);
  }

  // Step by `delta` versions; stepping stops playback.
  step(delta) {
    this.pause();
    this.seek(this.value + delta);
  }

  // Reflect a version in the controls without calling back.
  show(version) {
    this.value = version;
    this.slider.value = String(version);
    // The version on screen ([data-current-version]) is written by the page once it is drawn.
  }

  // Extend the slider when new versions arrive.
  setLatest(latest) {
    this.latest = Math.max(1, latest);
    this.slider.max = String(this.latest);
    this.root.querySelector("#tl-latest").textContent = String(this.latest);
    this.renderMarkers();
  }

  // Replace the markers (bluff calls, Final Gambit calls, disputes).
  setMarkers(markers) {
    this.markers = markers;
    this.renderMarkers();
  }

  // Draw the markers along the slider, each a button that jumps to its version.
  renderMarkers() {
    this.markerBox.replaceChildren();
    const span = Math.max(1, this.latest - 1);
    for (const marker of this.markers) {
      const button = el("button", {
        type: "button", class: `marker ${marker.type}`, title: marker.label, "aria-label": marker.label,
        "data-version": String(marker.version), "data-type": marker.type,
      });
      button.style.left = `${((marker.version - 1) / span) * 100}%`;
      button.addEventListener("click", () => {
        this.pause();
        this.show(marker.version);
        this.onMarker(marker);
      });
      this.markerBox.append(button);
    }
  }

  // Play or pause.
  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  // Start advancing one version per 1/speed seconds (from the start when at the end).
  play() {
    if (this.playing) return;
    if (this.value >= this.latest) this.seek(1);
    this.playing = true;
    this.playButton.textContent = "‖ pause";
    this.playButton.setAttribute("aria-pressed", "true");
    this.schedule();
  }

  // Stop advancing.
  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    this.playButton.textContent = "▶ play";
    this.playButton.setAttribute("aria-pressed", "false");
  }

  // Arm the next playback tick; at the latest version playback waits (a live match may go on).
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.playing) return;
      if (this.value < this.latest) this.seek(this.value + 1);
      else if (!this.waitAtEnd) { this.pause(); return; }
      this.schedule();
    }, 1000 / this.speed);
  }

  // Change the playback speed (versions per second).
  setSpeed(speed) {
    this.speed = speed;
    this.speedSelect.value = String(speed);
    if (this.playing) this.schedule();
  }

  // Keyboard shortcuts (ignored while typing in a form field).
  key(event) {
    const target = event.target;
    if (target && (target.tagName === "INPUT" && target.type !== "range" || target.tagName === "SELECT"
        || target.tagName === "TEXTAREA")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const big = event.shiftKey ? 10 : 1;
    const handlers = {
      ArrowLeft: () => this.step(-big), ArrowRight: () => this.step(big),
      Home: () => { this.pause(); this.seek(1); }, End: () => { this.pause(); this.seek(this.latest); },
      " ": () => this.toggle(), "[": () => this.jumpMarker(-1), "]": () => this.jumpMarker(1),
      "-": () => this.changeSpeed(-1), "+": () => this.changeSpeed(1), "=": () => this.changeSpeed(1),
    };
    const handler = handlers[event.key];
    if (handler) {
      event.preventDefault();
      handler();
    }
  }

  // Next (+1) or previous (-1) playback speed.
  changeSpeed(direction) {
    const index = SPEEDS.indexOf(this.speed);
    this.setSpeed(SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, index + direction))]);
  }

  // Jump to the next or previous marker and open it.
  jumpMarker(direction) {
    const list = direction > 0 ? this.markers.filter((m) => m.version > this.value)
      : this.markers.filter((m) => m.version < this.value).reverse();
    if (list.length === 0) return;
    this.pause();
    this.show(list[0].version);
    this.onMarker(list[0]);
  }
}
