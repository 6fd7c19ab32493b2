// Playing from the watch page: join a free seat, then (with a seat token) offer the seat's legal
// moves as controls, post the chosen one with If-Match and an Idempotency-Key, say in plain words
// why a move was refused, follow the match live, and list bluff calls with the evidence re-checked.
//
// The panel's data attributes tell tests and scripts where it is: data-state (spectator, loading,
// ready, waiting, posting, finished, not-seat), data-version (the version the offered moves are
// for), data-seat, data-last (ok, or the code of the last refused move).

import { ApiError, authHeaders, getJSON } from "./api.js";
import { el } from "./dom.js";
import { Labeller, mentioned, optionGroups } from "./play-controls.js";
import { CallLog } from "./play-evidence.js";

// Board elements a click can pick a value from, most specific first.
const PICKABLE = [["piece", "[data-piece]"], ["card", "[data-card]"], ["square", "[data-square]"]];
// How often a move that got no answer is sent again (same key, same If-Match) before giving up.
const RETRIES = 2;

// A fresh Idempotency-Key: one per intended command.
function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// The offered moves without their version: equal keys mean the same controls.
function movesKey(legal) {
  return JSON.stringify([legal.seat, legal.commands, legal.choices]);
}

// A refused request's problem in plain words: [headline, details line].
export function problemWords(status, problem, version) {
  const code = problem.code || `HTTP ${status}`;
  const extra = [`code: ${code}`, problem.rule ? `rule: ${problem.rule}` : ""].filter(Boolean).join(" · ");
  const said = problem.detail || problem.title || "";
  if (status === 412) {
    return [`The match moved on past version ${version} before your move arrived. Your moves are refreshed: choose again.`, extra];
  }
  if (status === 409 && code === "seat_unavailable") return [`That seat is not free: ${said}`, extra];
  if (status === 409) return ["Another move was being recorded at the same moment. Your moves are refreshed: choose again.", extra];
  if (status === 422 && code === "illegal_command") return [`That move is not allowed: ${said}.`, extra];
  if (status === 401 || status === 403) return [`This page's token may not do that: ${said}.`, extra];
  if (status === 429) return ["Too many requests just now: wait a moment, then try again.", extra];
  if (status === 0) return [`Your move got no answer: ${said}.`, extra];
  return [`${problem.title || "Refused"}: ${said}`, extra];
}

/** The play panel of the watch page. */
export class Play {
  // `panel` is the #play section; hooks: useToken(token) switches the page's viewer, commitmentAt(v)
  // the commitment of the record at version v the page holds, board the #board element.
  constructor(panel, { matchId, useToken, commitmentAt, board }) {
    this.panel = panel;
    this.matchId = matchId;
    this.useToken = useToken;
    this.board = board;
    this.token = null;
    this.summary = null;
    this.catalogue = null;
    this.legal = null;         // the last legal-commands body
    this.labeller = null;
    this.forms = [];
    this.picks = [];           // values picked on the board, in click order
    this.posting = false;
    this.refreshing = null;    // the pending refresh, if any
    this.again = false;        // another refresh was asked for while one ran
    this.timer = null;
    this.build();
    this.calls = new CallLog(this.callList, (v) => commitmentAt(v));
    board.addEventListener("click", (event) => this.onBoardClick(event));
  }

  // The panel's fixed parts.
  build() {
    this.heading = el("h2", {}, "Play");
    this.status = el("p", { class: "play-status", "data-testid": "play-status" });
    this.problem = el("div", { class: "play-problem", role: "alert", "data-testid": "play-problem", hidden: true });
    this.joinBox = el("div", { class: "play-join" });
    this.picksBox = el("div", { class: "play-picks", hidden: true });
    this.options = el("div", { class: "play-options-box" });
    this.callList = el("ol", { class: "play-calls", "data-testid": "play-calls" });
    this.callsBox = el("div", { class: "play-calls-box", hidden: true }, el("h3", {}, "Bluff calls"), this.callList);
    this.keep = el("div", { class: "play-keep" });
    this.panel.replaceChildren(this.heading, this.status, this.problem, this.joinBox, this.picksBox, this.options,
      this.callsBox, this.keep);
  }

  // Set the panel's state attribute (tests wait on it).
  setState(state) {
    this.panel.dataset.state = state;
  }

  /** The page (re)loaded the summary for a viewer: show join, play or the outcome accordingly. */
  setSummary(summary, token) {
    const viewerChanged = token !== this.token || !this.summary;
    this.summary = summary;
    this.token = token || null;
    if (viewerChanged) {
      this.legal = null;
      this.picks = [];
      this.calls.clear();
      this.loadCalls();
      this.showProblem(null);
      this.keep.replaceChildren();
    }
    if (!this.catalogue) this.loadCatalogue();
    this.panel.hidden = false;
    this.renderJoin();
    if (summary.status === "finished") {
      this.finish();
    } else if (!this.token) {
      this.options.replaceChildren();
      this.setState("spectator");
      this.status.textContent = summary.status === "open" ? "Waiting for players to join." : "You are watching as a spectator.";
      this.panel.dataset.seat = "";
    } else {
      this.refresh();
    }
  }

  /** A new record reached the page over the live stream. */
  onRecord(record) {
    const p = record.public || {};
    if (record.kind === "FinalGambitCalled") this.calls.announce(record.version, `${p.seat || p.caller || "a seat"} calls Final Gambit`);
    if (p.bluff_call) this.loadCalls(record.version);
    if (this.calls.size) this.callsBox.hidden = false;
    if (this.token && this.summary && this.summary.status !== "finished" && this.panel.dataset.state !== "not-seat") {
      // A burst of records (one command can write several) costs one refresh.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), 60);
    }
  }

  /** The page drew a board: mark what the seat may click and what it picked. */
  onDraw() {
    this.markBoard();
  }

  // The ruleset's catalogue (card names), once.
  async loadCatalogue() {
    try {
      this.catalogue = (await getJSON(`/rulesets/${encodeURIComponent(this.summary.ruleset)}`, null)).catalogue || {};
      if (this.legal) this.renderOptions();
    } catch (_) {
      this.catalogue = {};
    }
  }

  // The audit's calls (all of them, or the one ruled at `version`) into the call list.
  async loadCalls(version = null) {
    let calls;
    try {
      calls = (await getJSON(`/matches/${encodeURIComponent(this.matchId)}/audit/bluffs`, this.token)).calls || [];
    } catch (_) {
      return;
    }
    for (const entry of calls) {
      if (entry.ruling_version === null || entry.ruling_version === undefined) continue;
      if (version === null || entry.ruling_version === version) this.calls.show(entry);
    }
    this.callsBox.hidden = this.calls.size === 0;
  }

  // ----- join -----------------------------------------------------------------------------------

  // The join form, on a match with free seats, for a page that holds no seat.
  renderJoin() {
    const free = (this.summary.seats || []).filter((s) => !s.joined).map((s) => s.seat);
    const joinable = !this.token && this.summary.status !== "finished" && free.length > 0;
    if (!joinable) {
      this.joinBox.replaceChildren();
      return;
    }
    if (this.joinBox.querySelector("form")) {
      // Keep what the user typed; only the free seats change.
      this.updateSeatChoice(free);
      return;
    }
    const name = el("input", { name: "name", required: true, maxlength: "64", placeholder: "your name", autocomplete: "nickname" });
    const seat = el("select", { name: "seat" });
    const form = el("form", { class: "play-join-form", "data-testid": "join-form", autocomplete: "off" },
      el("h3", {}, "Join this match"),
      el("label", {}, "Name ", name), el("label", {}, "Seat ", seat),
      el("button", { type: "submit" }, "Join"));
    this.seatSelect = seat;
    this.updateSeatChoice(free);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.join(name.value.trim(), seat.value || null, form);
    });
    this.joinBox.replaceChildren(form);
  }

  // The seat select: any free seat, or one by name.
  updateSeatChoice(free) {
    const keep = this.seatSelect.value;
    this.seatSelect.replaceChildren(el("option", { value: "" }, "any free seat"),
      ...free.map((s) => el("option", { value: s }, s)));
    if (free.includes(keep)) this.seatSelect.value = keep;
  }

  // POST /matches/{id}/seats, then become that seat (the token is kept like a pasted one).
  async join(name, seat, form) {
    if (!name) {
      this.showProblem(["Type a name to join.", ""]);
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const response = await fetch(`/matches/${encodeURIComponent(this.matchId)}/seats`, {
        method: "POST",
        headers: authHeaders(null, { "Content-Type": "application/json" }),
        body: JSON.stringify(seat ? { name, seat } : { name }),
        cache: "no-store",
      });
      const body = await response.json().catch(() => ({}));
      if (response.status !== 201) {
        this.showProblem(problemWords(response.status, body, this.summary.version));
        return;
      }
      this.showProblem(null);
      await this.useToken(body.token);
    } catch (err) {
      this.showProblem([`Could not join: ${err.message}.`, ""]);
    } finally {
      button.disabled = false;
    }
  }

  // The link that opens this seat's page elsewhere (the token travels in the fragment, never to the server).
  showKeep(token) {
    const link = `${window.location.origin}${window.location.pathname}#token=${encodeURIComponent(token)}`;
    const field = el("input", { readonly: true, value: link, "aria-label": "link to this seat's page", spellcheck: "false" });
    field.addEventListener("focus", () => field.select());
    this.keep.replaceChildren(el("details", {}, el("summary", {}, "Keep your seat's link"),
      el("p", { class: "hint" }, "Anyone with this link plays as you. Open it to play from another tab or device."), field));
  }

  // ----- offering moves ---------------------------------------------------------------------------

  // Fetch the seat's legal moves and its view (for card names); one refresh at a time, the last wins.
  async refresh() {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        if (!this.posting) this.setState("loading");
        await this.fetchLegal();
      } while (this.again);
    })();
    try {
      await this.refreshing;
    } finally {
      this.refreshing = null;
    }
    return null;
  }

  // One fetch of legal-commands and the view, then the controls.
  async fetchLegal() {
    const base = `/matches/${encodeURIComponent(this.matchId)}`;
    let legal;
    let view;
    try {
      if (!this.legal) {
        // Whose token this is comes first: an organizer's or a stranger's is not asked for moves.
        view = await getJSON(`${base}/view`, this.token);
        if (!(this.summary.seats || []).some((s) => s.seat === view.viewer)) {
          this.notSeat(view.viewer === "organizer" ? "Organizers watch; only seats play." : "This token holds no seat here.");
          return;
        }
        legal = await getJSON(`${base}/legal-commands`, this.token);
      } else {
        [legal, view] = await Promise.all([getJSON(`${base}/legal-commands`, this.token), getJSON(`${base}/view`, this.token)]);
      }
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        this.notSeat(err.status === 403 ? "Organizers watch; only seats play." : "This token holds no seat here.");
        return;
      }
      this.showProblem(problemWords(err.status || 0, { code: err.code, detail: err.message }, this.summary.version));
      this.setState(this.legal ? "ready" : "waiting");
      return;
    }
    if (view.status === "finished") {
      this.finish();
      return;
    }
    // The same moves at a newer version keep their controls, so a half-filled form survives a record.
    const same = this.legal && this.options.firstChild && movesKey(legal) === movesKey(this.legal);
    this.legal = legal;
    this.view = view;
    this.panel.dataset.seat = legal.seat;
    if (!this.keep.firstChild) this.showKeep(this.token);
    this.panel.dataset.version = String(legal.version);
    if (same) {
      this.renderStatus();
      this.markBoard();
      if (!this.posting) this.setState(this.offeredCount() ? "ready" : "waiting");
      return;
    }
    this.picks = [];
    this.renderOptions();
  }

  // How many moves are offered now.
  offeredCount() {
    return this.legal ? this.legal.commands.length + this.legal.choices.length : 0;
  }

  // Draw the offered moves for the last legal-commands answer.
  renderOptions() {
    const legal = this.legal;
    if (!legal || !this.token) return;
    this.labeller = new Labeller(this.catalogue || {}, (this.view || {}).state || null);
    const { node, forms } = optionGroups(legal, this.labeller, (body) => this.play(body));
    this.forms = forms;
    this.options.replaceChildren(node);
    this.renderStatus();
    this.applyPicks();
    if (!this.posting) this.setState(this.offeredCount() ? "ready" : "waiting");
  }

  // The line that says whose move it is.
  renderStatus() {
    const legal = this.legal;
    const view = this.view || {};
    const waitingFor = (view.to_act || []).filter((s) => s !== legal.seat);
    if (view.status === "open") {
      this.status.textContent = `You are ${legal.seat}. Waiting for the other seats to join.`;
    } else if (this.offeredCount() === 0) {
      this.status.textContent = `You are ${legal.seat}. ${waitingFor.length ? `Waiting for ${waitingFor.join(", ")}.` : "Nothing to do right now."}`;
    } else {
      const must = (view.to_act || []).includes(legal.seat);
      this.status.textContent = `You are ${legal.seat}. ${must ? "Your move" : "You may act"} (version ${legal.version}).`
        + (this.board.querySelector("[data-piece],[data-card],[data-square]") ? " Pick from the list, or click the board." : "");
    }
  }

  // A viewer that holds no seat: nothing to offer.
  notSeat(words) {
    this.options.replaceChildren();
    this.panel.dataset.seat = "";
    this.setState("not-seat");
    this.status.textContent = words;
  }

  // The match is over: its outcome instead of moves.
  finish() {
    this.options.replaceChildren();
    this.picksBox.hidden = true;
    this.setState("finished");
    const outcome = (this.summary && this.summary.outcome) || (this.view && this.view.outcome) || null;
    const winners = outcome && Array.isArray(outcome.winners) ? outcome.winners : null;
    this.status.textContent = `The match has finished.${winners ? ` ${winners.length ? `Won by ${winners.join(", ")}.` : "No winner."}` : ""}`;
    // Everything is public now: sealed evidence can be checked too.
    this.loadCalls();
  }

  // ----- playing ------------------------------------------------------------------------------------

  /** Post one command as the seat: If-Match the offered version, one Idempotency-Key per intent. */
  async play(body, intent = null) {
    if (this.posting || !this.legal) return;
    const attempt = intent || { body, key: newKey(), version: this.legal.version };
    this.posting = true;
    this.setState("posting");
    this.showProblem(null);
    let response = null;
    let failure = null;
    for (let tries = 0; tries <= RETRIES && !response; tries += 1) {
      try {
        const answer = await fetch(`/matches/${encodeURIComponent(this.matchId)}/commands`, {
          method: "POST",
          headers: authHeaders(this.token, {
            "Content-Type": "application/json", "If-Match": `"${attempt.version}"`, "Idempotency-Key": attempt.key,
          }),
          body: JSON.stringify(attempt.body),
          cache: "no-store",
        });
        // A server error may have happened after the write: the same key makes the retry safe.
        if (answer.status >= 500 && tries < RETRIES) await new Promise((r) => setTimeout(r, 300 * (tries + 1)));
        else response = answer;
      } catch (err) {
        failure = err;
        if (tries < RETRIES) await new Promise((r) => setTimeout(r, 300 * (tries + 1)));
      }
    }
    this.posting = false;
    if (!response) {
      this.showProblem(problemWords(0, { code: "network_error", detail: failure ? failure.message : "no answer" }, attempt.version),
        () => this.play(attempt.body, attempt));
      this.panel.dataset.last = "network_error";
      this.panel.dataset.posted = String(Number(this.panel.dataset.posted || 0) + 1);
      this.setState("ready");
      return;
    }
    const answer = await response.json().catch(() => ({}));
    this.panel.dataset.posted = String(Number(this.panel.dataset.posted || 0) + 1);
    if (response.status === 201) {
      this.panel.dataset.last = "ok";
      this.picks = [];
    } else {
      this.panel.dataset.last = answer.code || String(response.status);
      this.showProblem(problemWords(response.status, answer, attempt.version));
    }
    // After a write, a stale version or a clash alike: offer what is legal now.
    await this.refresh();
  }

  // Show a problem (null hides it), with a Retry button when `retry` is given.
  showProblem(words, retry = null) {
    if (!words) {
      this.problem.hidden = true;
      this.problem.replaceChildren();
      return;
    }
    const [headline, details] = words;
    this.problem.hidden = false;
    this.problem.replaceChildren(el("strong", {}, headline), details ? el("div", { class: "hint" }, details) : "");
    if (retry) {
      const button = el("button", { type: "button", "data-action": "retry" }, "Retry");
      button.addEventListener("click", retry);
      this.problem.append(button);
    }
  }

  // ----- the board: click a piece, then a square (or a card) --------------------------------------

  // Every option (listed command or choice) with the values it mentions and its control.
  offered() {
    const out = [];
    for (const button of this.options.querySelectorAll("[data-testid=legal-command]")) {
      const body = JSON.parse(button.dataset.body);
      out.push({ body, values: mentioned(body), control: button, listed: true });
    }
    for (const form of this.forms) {
      const choices = this.legal.choices.filter((c) => c.type === form.dataset.type);
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
  onBoardClick(event) {
    if (!this.token || !this.legal || this.posting || this.panel.dataset.state !== "ready" || !this.atLatest()) return;
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
      this.applyPicks();
      return;
    }
    let next = null;
    for (const value of values) {
      if (this.picks.includes(value)) continue;
      if (this.fitting([...this.picks, value]).length) {
        next = [...this.picks, value];
        break;
      }
    }
    if (!next) {
      next = values.map((v) => [v]).find((p) => this.fitting(p).length) || null;
    }
    if (!next) return;
    this.picks = next;
    const fits = this.fitting(this.picks);
    const listed = fits.filter((o) => o.listed);
    // A piece and its square naming exactly one move: that is the move.
    if (this.picks.length >= 2 && listed.length === 1 && fits.length === 1) {
      this.play(listed[0].body);
      return;
    }
    for (const option of fits) if (!option.listed) option.control.pick(this.picks.at(-1));
    this.applyPicks();
  }

  // Show the picks: narrow the offered moves to those that fit, mark the board.
  applyPicks() {
    const fits = this.picks.length ? new Set(this.fitting(this.picks).map((o) => o.control)) : null;
    for (const option of this.offered()) option.control.classList.toggle("play-unfit", Boolean(fits) && !fits.has(option.control));
    for (const group of this.options.querySelectorAll(".play-type")) {
      const open = group.querySelector("[data-testid=legal-command]:not(.play-unfit), [data-testid=legal-choice]:not(.play-unfit)");
      group.classList.toggle("play-unfit", Boolean(fits) && !open);
    }
    for (const details of this.options.querySelectorAll("details.play-many")) {
      if (fits && details.querySelector(".play-command:not(.play-unfit)")) details.open = true;
    }
    if (this.picks.length) {
      const clear = el("button", { type: "button", "data-action": "clear-picks" }, "clear");
      clear.addEventListener("click", () => { this.picks = []; this.applyPicks(); });
      this.picksBox.replaceChildren(`Picked: ${this.picks.map((v) => this.labeller.value(v)).join(" → ")} · ${fits.size} fitting `, clear);
    }
    this.picksBox.hidden = this.picks.length === 0;
    this.markBoard();
  }

  // Mark the board: what fits the picks can be clicked next, what was picked stands out.
  markBoard() {
    const nodes = this.board.querySelectorAll("[data-piece],[data-card],[data-square]");
    if (!this.token || !this.legal || this.panel.dataset.state === "finished" || !this.atLatest()) {
      for (const node of nodes) node.classList.remove("play-pick", "play-target", "play-can");
      return;
    }
    const offered = this.offered();
    const fits = this.picks.length ? offered.filter((o) => this.picks.every((v) => o.values.has(v))) : offered;
    const next = new Set();
    for (const option of fits) for (const v of option.values) next.add(v);
    for (const node of nodes) {
      const value = node.dataset.piece ?? node.dataset.card ?? node.dataset.square;
      const picked = this.picks.includes(value);
      node.classList.toggle("play-pick", picked);
      node.classList.toggle("play-target", this.picks.length > 0 && !picked && next.has(value));
      // Before a pick only pieces and cards invite a click: nearly every square is someone's destination.
      node.classList.toggle("play-can", this.picks.length === 0 && node.dataset.square === undefined && next.has(value));
    }
  }
}
