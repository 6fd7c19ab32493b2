// Playing by clicking the board: click a piece, then a square (or a card). Each click narrows the
// offered moves to those that mention every picked value; a piece and its square that name exactly
// one move play it, and several (a move with a choice of claims) are offered as one button each.
// The board marks what was picked and what may be clicked next; board-keys.js makes the same picks
// by keyboard.

import { BoardKeys } from "./board-keys.js";
import { el } from "./dom.js";
import { commandButton, moveKey, moveWords } from "./play-controls.js";
import { mentioned } from "./play-domains.js";

// Board elements a click can pick a value from, most specific first.
const PICKABLE = [["piece", "[data-piece]"], ["card", "[data-card]"], ["square", "[data-square]"]];
// Up to this many listed moves that fit the picks are offered as buttons beside the picks.
const MAX_PICKED_BUTTONS = 12;

/** The values a seat picked on the board, in click order, and what they do to the offered moves. */
export class BoardPicks {
  // `board` is the #board element, `box` the panel's "Picked: …" line; `seat` the play panel whose
  // offered moves the picks narrow: its token, legal, posting, panel state, options, forms and
  // labeller are read, and seat.play(body) sends the move the picks name.
  constructor(board, box, seat) {
    this.board = board;
    this.box = box;
    this.seat = seat;
    this.picks = [];           // values picked on the board, in click order
    this.keys = new BoardKeys(board);
    board.addEventListener("click", (event) => this.onClick(event));
  }

  /** Forget the picks (the caller draws the moves again). */
  reset() {
    this.picks = [];
  }

  // Every option with the values it mentions and its control: each distinct listed command once
  // (claims named in another order are the same move), and each choice form.
  offered() {
    const out = [];
    if (!this.seat.legal) return out;
    const buttons = new Map();
    for (const button of this.seat.options.querySelectorAll("[data-testid=legal-command]")) {
      buttons.set(moveKey(JSON.parse(button.dataset.body)), button);
    }
    const seen = new Set();
    for (const body of this.seat.legal.commands) {
      const key = moveKey(body);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ body, values: mentioned(body), control: buttons.get(key) || null, listed: true });
    }
    for (const form of this.seat.forms) {
      const choices = this.seat.legal.choices.filter((c) => c.type === form.dataset.type);
      const values = new Set();
      for (const choice of choices) for (const v of mentioned(choice)) values.add(v);
      out.push({ values, control: form, listed: false });
    }
    return out;
  }

  // The options that mention every picked value.
  fitting(picks) {
    return this.offered().filter((o) => picks.every((v) => o.values.has(v)));
  }

  // Whether the board shows the newest version (an older one is history, not a place to move on).
  atLatest() {
    const root = this.board.closest("[data-latest]");
    return !root || root.dataset.version === root.dataset.latest;
  }

  // A click on the board picks the clicked piece, card or square when some offered move fits.
  onClick(event) {
    const seat = this.seat;
    if (!seat.token || !seat.legal || seat.posting || seat.panel.dataset.state !== "ready" || !this.atLatest()) return;
    const found = [];
    for (const [kind, selector] of PICKABLE) {
      const target = event.target.closest(selector);
      if (target && this.board.contains(target)) found.push([kind, target.dataset[kind]]);
    }
    if (found.length === 0) return;
    // With a piece already picked, a square is where it goes; without one, the piece is what is picked.
    const order = this.picks.length ? [...found].reverse() : found;
    const values = order.map(([, value]) => value);
    if (this.picks.length === 1 && values.includes(this.picks[0])) {
      this.picks = [];
      this.apply();
      return;
    }
    let next = null;
    for (const value of values) {
      if (this.picks.includes(value)) continue;
      const longer = [...this.picks, value];
      // Picks only build up towards a listed move; a choice form takes each click on its own.
      if (this.fitting(longer).some((o) => o.listed)) {
        next = longer;
        break;
      }
    }
    if (!next) next = values.map((v) => [v]).find((p) => this.fitting(p).length) || null;
    if (!next) return;
    this.picks = next;
    const fits = this.fitting(this.picks);
    const listed = fits.filter((o) => o.listed);
    // A piece and its square naming exactly one move: that is the move.
    if (this.picks.length >= 2 && listed.length === 1 && fits.length === 1) {
      seat.play(listed[0].body);
      return;
    }
    for (const option of fits) if (!option.listed) option.control.pick(this.picks.at(-1));
    this.apply();
  }

  /** Show the picks: narrow the offered moves to those that fit, mark the board. */
  apply() {
    const options = this.seat.options;
    const fitting = this.picks.length ? this.fitting(this.picks) : null;
    const fits = fitting ? new Set(fitting.map((o) => o.control).filter(Boolean)) : null;
    for (const option of this.offered()) {
      if (option.control) option.control.classList.toggle("play-unfit", Boolean(fits) && !fits.has(option.control));
    }
    for (const group of options.querySelectorAll(".play-type")) {
      const open = group.querySelector("[data-testid=legal-command]:not(.play-unfit), [data-testid=legal-choice]:not(.play-unfit)");
      group.classList.toggle("play-unfit", Boolean(fits) && !open && !group.querySelector("[data-board-moves]"));
    }
    for (const details of options.querySelectorAll("details.play-many")) {
      if (fits && details.querySelector(".play-command:not(.play-unfit)")) details.open = true;
    }
    if (this.picks.length) this.showPicks(fitting);
    this.box.hidden = this.picks.length === 0;
    this.mark();
  }

  // The "Picked: …" line, and a button for each fitting listed move that has none in the list (the
  // claims to make with a picked piece and square, each distinct move once).
  showPicks(fitting) {
    const labeller = this.seat.labeller;
    const clear = el("button", { type: "button", "data-action": "clear-picks" }, "clear");
    clear.addEventListener("click", () => { this.picks = []; this.apply(); });
    const unlisted = fitting.filter((o) => o.listed && !o.control);
    const buttons = this.picks.length >= 2 && unlisted.length <= MAX_PICKED_BUTTONS
      ? el("div", { class: "play-buttons play-claims", "data-testid": "picked-moves" },
        unlisted.map((o) => commandButton(o.body, labeller, (body) => this.seat.play(body), moveWords(o.body, labeller))))
      : "";
    const what = buttons ? (unlisted.length === 1 ? "1 move:" : `${unlisted.length} moves — pick what you claim:`)
      : `${fitting.length} fitting${this.picks.length === 1 && unlisted.length ? " · now a square" : ""}`;
    this.box.replaceChildren(el("span", {}, `Picked: ${this.picks.map((v) => labeller.value(v)).join(" → ")} · ${what} `),
      clear, buttons);
  }

  /** Mark the board: what fits the picks can be clicked next, what was picked stands out. */
  mark() {
    const seat = this.seat;
    const nodes = this.board.querySelectorAll("[data-piece],[data-card],[data-square]");
    const pickable = new Set();
    if (!seat.token || !seat.legal || seat.panel.dataset.state === "finished" || !this.atLatest()) {
      for (const node of nodes) node.classList.remove("play-pick", "play-target", "play-can");
      this.keys.update(pickable);
      return;
    }
    const offered = this.offered();
    const fits = this.picks.length ? offered.filter((o) => this.picks.every((v) => o.values.has(v))) : offered;
    const next = new Set();
    for (const option of fits) for (const v of option.values) next.add(v);
    for (const node of nodes) {
      const value = node.dataset.piece ?? node.dataset.card ?? node.dataset.square;
      const picked = this.picks.includes(value);
      const target = this.picks.length > 0 && !picked && next.has(value);
      // Before a pick only pieces and cards invite a click: nearly every square is someone's destination.
      const can = this.picks.length === 0 && node.dataset.square === undefined && next.has(value);
      node.classList.toggle("play-pick", picked);
      node.classList.toggle("play-target", target);
      node.classList.toggle("play-can", can);
      if (picked || target || can) pickable.add(node);
    }
    this.keys.update(pickable);
  }
}
