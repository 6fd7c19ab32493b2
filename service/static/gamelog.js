// The game log of the watch page: one line per record (`data-game-log`, each line `data-version`,
// markers the public contract fixes: docs/playing.md), a short sentence for this viewer with hidden parts hidden, the line
// of the version on screen marked, and a click on a line moving the timeline there. The words come
// from one small module per game (log-<ruleset>.js); a game without one gets the generic sentence
// of each event kind, so a new game still has a log.

import { el } from "./dom.js";
import { logContext, marksFor, sentenceFor } from "./log-common.js";

// The games with their own words; loaded on first use (a static map: no request for a missing file).
const GAMES = {
  gambitz: () => import("./log-gambitz.js"),
  "dragons-gambit": () => import("./log-dragons-gambit.js"),
  "gambit-tcg": () => import("./log-gambit-tcg.js"),
  "gambit-board": () => import("./log-gambit-board.js"),
  "gattai-conflict": () => import("./log-gattai-conflict.js"),
};

/** The log panel: `box` is its section; `onPick(version)` moves the timeline to a line's version. */
export class GameLog {
  // Build the panel's list; a click (or Enter) on a line picks its version.
  constructor(box, { onPick }) {
    this.list = el("ol", { class: "game-log", "data-game-log": "", "aria-label": "Game log, one line per record" });
    box.replaceChildren(el("h2", {}, "Game log"), this.list);
    this.game = {};
    this.records = [];
    this.context = logContext(null, null, null);
    this.shown = null;
    this.list.addEventListener("click", (event) => {
      const line = event.target.closest("li[data-version]");
      if (line && this.list.contains(line)) onPick(Number(line.dataset.version));
    });
  }

  /** The words of `ruleset` (its own module, or none: the generic sentences). */
  async setGame(ruleset) {
    const load = GAMES[ruleset];
    try {
      this.game = load ? await load() : {};
    } catch (err) {
      console.warn(`no log words for ${ruleset}: ${err.message}`);
      this.game = {};
    }
  }

  /** Write every line again for these records, named for this summary, catalogue and viewer. */
  reset(records, summary, catalogue, viewer) {
    this.context = logContext(summary, catalogue, viewer);
    this.records = [];
    this.list.replaceChildren();
    for (const record of records) this.add(record);
  }

  /** One record's sentence for this viewer (it teaches the log names it shows on the way). */
  sentence(record) {
    if (record.kind === "SeatJoined" && record.public) this.context.nameSeat(record.public.seat, record.public.name);
    return sentenceFor(record, this.game, this.context);
  }

  /** Add the line of one new record; returns its sentence. */
  add(record) {
    const text = this.sentence(record);
    this.records.push(record);
    const line = el("li", { "data-version": String(record.version), "data-kind": record.kind, tabindex: "0",
                            title: `version ${record.version} · ${record.kind}` },
      el("span", { class: "log-version" }, `${record.version}.`), " ", el("span", { class: "log-text" }, text));
    line.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        line.click();
      }
    });
    const stick = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 4;
    this.list.append(line);
    if (stick) this.list.scrollTop = this.list.scrollHeight;
    return text;
  }

  /** Mark the line of the version on screen (aria-current) and keep it in view. */
  show(version) {
    if (this.shown) this.shown.removeAttribute("aria-current");
    this.shown = this.list.querySelector(`li[data-version="${version}"]`);
    if (!this.shown) return;
    this.shown.setAttribute("aria-current", "step");
    const top = this.shown.offsetTop - this.list.offsetTop;
    if (top < this.list.scrollTop || top + this.shown.offsetHeight > this.list.scrollTop + this.list.clientHeight) {
      this.list.scrollTop = Math.max(0, top - this.list.clientHeight / 2);
    }
  }

  /** The board selectors of the last move at or before `version` (the newest record that moved something). */
  lastMove(version) {
    for (let i = Math.min(version, this.records.length) - 1; i >= 0; i -= 1) {
      const record = this.records[i];
      const marks = marksFor(record, this.game);
      if (marks.length) return { version: record.version, marks };
      // A dozen records on (turns, draws, rulings), an old move is no longer the last one worth marking.
      if (version - record.version > 12) break;
    }
    return { version: null, marks: [] };
  }
}

/** Put the `last-move` class on the board elements the selectors name (and take it off the rest). */
export function markLastMove(board, marks) {
  for (const node of board.querySelectorAll(".last-move")) node.classList.remove("last-move");
  for (const selector of marks) {
    try {
      for (const node of board.querySelectorAll(selector)) node.classList.add("last-move");
    } catch (err) {
      console.warn(`cannot mark ${selector}: ${err.message}`);
    }
  }
}
