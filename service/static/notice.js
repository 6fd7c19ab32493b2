// Telling a player what happened without looking: the tab title and favicon when it is the seat's
// move, an optional sound (off by default, remembered in this browser), and one polite aria-live
// region that announces moves, results and low time to screen readers.

import { el } from "./dom.js";

const SOUND_KEY = "gambit-sound";
const PLAIN_ICON = "data:,";
// A green dot: the seat is to act (a data: URL image, which the page's CSP img-src allows).
const TURN_ICON = "data:image/svg+xml,"
  + encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='#12692f'/></svg>");

let region = null;

/** Announce a sentence to screen readers (politely: after what they are reading now). */
export function announce(text) {
  if (!region) {
    region = document.getElementById("announcer") || el("div", { id: "announcer", class: "sr-only", "aria-live": "polite",
                                                             role: "status", "data-testid": "announcer" });
    if (!region.isConnected) document.body.append(region);
  }
  // A new node per message: screen readers announce additions, and the region keeps a short history.
  region.append(el("p", {}, text));
  while (region.childElementCount > 5) region.firstElementChild.remove();
}

/** The page's "your move" signals: title, favicon, sound. */
export class TurnNotice {
  // `toggleSlot` is where the sound switch goes (the top bar).
  constructor(toggleSlot) {
    this.base = document.title;
    this.mine = false;
    this.audio = null;
    this.icon = document.querySelector("link[rel~=icon]") || document.head.appendChild(el("link", { rel: "icon", href: PLAIN_ICON }));
    this.sound = localStorage.getItem(SOUND_KEY) === "on";
    this.toggle = el("button", { type: "button", class: "sound-toggle", "data-testid": "sound-toggle",
                                 title: "Play a sound when it is your move" });
    this.toggle.addEventListener("click", () => this.setSound(!this.sound));
    this.drawToggle();
    if (toggleSlot) toggleSlot.append(this.toggle);
  }

  // The switch shows its state in its words and aria-pressed.
  drawToggle() {
    this.toggle.textContent = this.sound ? "Sound: on" : "Sound: off";
    this.toggle.setAttribute("aria-pressed", String(this.sound));
  }

  /** Turn the sound on or off (remembered in this browser). */
  setSound(on) {
    this.sound = on;
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
    this.drawToggle();
    if (on) this.beep();
  }

  /** The title the page has when it is not the seat's move. */
  setBase(title) {
    this.base = title;
    this.draw();
  }

  /** Whether it is this seat's move now; becoming so rings once and is announced. */
  setTurn(mine) {
    const became = mine && !this.mine;
    this.mine = mine;
    this.draw();
    if (became) {
      announce("Your move.");
      if (this.sound) this.beep();
    }
  }

  // Title, favicon and the page's data-turn for scripts and tests.
  draw() {
    document.title = this.mine ? `● Your move — ${this.base}` : this.base;
    this.icon.href = this.mine ? TURN_ICON : PLAIN_ICON;
    document.documentElement.dataset.turn = this.mine ? "mine" : "";
  }

  // A short two-tone chime with WebAudio (nothing when the browser has none or forbids it).
  beep() {
    try {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return;
      this.audio = this.audio || new Context();
      const now = this.audio.currentTime;
      [[660, 0], [880, 0.12]].forEach(([hz, at]) => {
        const tone = this.audio.createOscillator();
        const gain = this.audio.createGain();
        tone.frequency.value = hz;
        gain.gain.setValueAtTime(0.0001, now + at);
        gain.gain.exponentialRampToValueAtTime(0.15, now + at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.18);
        tone.connect(gain).connect(this.audio.destination);
        tone.start(now + at);
        tone.stop(now + at + 0.2);
      });
    } catch (err) {
      console.warn(`no sound: ${err.message}`);
    }
  }
}
