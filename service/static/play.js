// Playing from the watch page: join a free seat, then (with a seat token) offer the seat's legal
// moves as controls, post the chosen one with If-Match and an Idempotency-Key, say in plain words
// why a move was refused, follow the match live, and list bluff calls with the evidence re-checked.
// The parts live beside this file: play-join.js (taking and keeping a seat), play-controls.js (the
// moves as controls), play-board.js (picking a move on the board), play-submit.js (sending it),
// play-problem.js (why it was refused), play-resend.js (a stale move sent again when nothing the
// seat can see changed), play-evidence.js (the bluff calls).
//
// The panel's data attributes tell tests and scripts where it is: data-state (spectator, loading,
// ready, waiting, posting, finished, not-seat, offline), data-version (the version the offered
// moves are for), data-seat, data-last (ok, or the code of the last refused move), data-resent (how
// many stale moves were sent again by themselves).

import { ApiError, getAllEvents, getJSON } from "./api.js";
import { el } from "./dom.js";
import { BoardPicks } from "./play-board.js";
import { Labeller, optionGroups } from "./play-controls.js";
import { disputeControl } from "./play-dispute.js";
import { CallLog } from "./play-evidence.js";
import { backoffMs } from "./live.js";
import { JoinBox, keepLink } from "./play-join.js";
import { problemWords, renderProblem } from "./play-problem.js";
import { decideResend } from "./play-resend.js";
import { newIntent, sendCommand } from "./play-submit.js";
import { signingNote } from "./seat-keys.js";

export { problemWords };

// How many times in a row a stale move is sent again by itself before the seat is asked.
const MAX_RESENDS = 3;

// The offered moves without their version: equal keys mean the same controls.
function movesKey(legal) {
  return JSON.stringify([legal.seat, legal.commands, legal.choices]);
}

/** The play panel of the watch page. */
export class Play {
  // `panel` is the #play section; hooks: useToken(token) switches the page's viewer, commitmentAt(v)
  // the commitment of the record at version v the page holds, board the #board element,
  // describe(record) a record in words (the game log's), onTurn(mine) whether the seat is to act.
  // onSeat(token, seat) the seat this page plays, onReceipt(receipt, seat) the receipt of each of its moves,
  // onJoined(receipt, seat) the receipt of the join made here.
  constructor(panel, { matchId, useToken, commitmentAt, board, describe = (r) => r.kind, onTurn = () => {},
    onSeat = () => {}, onReceipt = () => {}, onJoined = () => {} }) {
    this.panel = panel;
    this.matchId = matchId;
    this.board = board;
    this.token = null;
    this.summary = null;
    this.catalogue = null;
    this.legal = null;         // the last legal-commands body
    this.labeller = null;
    this.forms = [];
    this.posting = false;
    this.refreshing = null;    // the pending refresh, if any
    this.again = false;        // another refresh was asked for while one ran
    this.timer = null;
    this.describe = describe;
    this.onTurn = onTurn;
    this.onSeat = onSeat;
    this.onReceipt = onReceipt;
    this.connection = "connecting";
    this.failures = 0;         // failed reads in a row (the backoff of the next try)
    this.retry = null;         // the timer of the next try
    this.build();
    this.joining = new JoinBox(this.joinBox, { matchId, useToken, onJoined, showProblem: (words) => this.showProblem(words) });
    this.calls = new CallLog(this.callList, (v) => commitmentAt(v));
    // A seat of a tournament match may dispute a ruled call; the organizer rules on it.
    this.calls.decorate = (entry) => (this.token && this.summary && this.summary.tournament_id && entry.verdict
      ? disputeControl(entry, { matchId: this.matchId, token: this.token }) : null);
    this.picking = new BoardPicks(board, this.picksBox, this);
  }

  // The panel's fixed parts.
  build() {
    this.heading = el("h2", {}, "Play");
    this.status = el("p", { class: "play-status", "data-testid": "play-status" });
    this.problem = el("div", { class: "play-problem", role: "alert", "data-testid": "play-problem", hidden: true });
    this.joinBox = el("div", { class: "play-join" });
    this.picksBox = el("div", { class: "play-picks", hidden: true });
    this.options = el("div", { class: "play-options-box" });
    // The list scrolls when long: focusable, so a keyboard can scroll it even when it holds no button.
    this.callList = el("ol", { class: "play-calls", "data-testid": "play-calls", tabindex: "0", "aria-label": "Bluff calls" });
    this.callsBox = el("div", { class: "play-calls-box", hidden: true }, el("h3", {}, "Bluff calls"), this.callList);
    this.keep = el("div", { class: "play-keep" });
    // The seat's moves ride in an action bar: a block of the panel on a wide screen, pinned to the
    // bottom of the screen on a phone (play.css), so they are never a long scroll away.
    this.bar = el("div", { class: "play-bar", "data-testid": "action-bar", role: "region", "aria-label": "Your moves" },
      this.status, this.problem, this.picksBox, this.options);
    this.panel.replaceChildren(this.heading, this.joinBox, this.bar, this.callsBox, this.keep);
    // Space and Enter on a move's button press it; the timeline's shortcuts (Space plays) are for elsewhere.
    this.panel.addEventListener("keydown", (event) => {
      if ((event.key === " " || event.key === "Enter") && event.target.closest("button, summary, [role=button]")) event.stopPropagation();
    });
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
    this.onTurn(false);
    if (viewerChanged) {
      this.legal = null;
      this.picking.reset();
      this.calls.clear();
      this.loadCalls();
      this.showProblem(null);
      this.keep.replaceChildren();
    }
    if (!this.catalogue) this.loadCatalogue();
    this.panel.hidden = false;
    this.joining.render(summary, this.token);
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

  /** The page's connection: while it is lost, nothing here claims to be current. */
  setConnection(state) {
    const was = this.connection;
    this.connection = state;
    if (state === "reconnecting" && this.legal && this.panel.dataset.state !== "finished") {
      this.setState("offline");
      this.onTurn(false);
      this.status.textContent = `You are ${this.legal.seat}. The connection was lost: reconnecting… your moves are read again once it is back.`;
    } else if (state === "live" && was === "reconnecting" && this.token) {
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
    this.picking.mark();
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
          this.notSeat(view.viewer === "organizer" ? this.organizerWords() : "This token holds no seat here.");
          return;
        }
        legal = await getJSON(`${base}/legal-commands`, this.token);
      } else {
        [legal, view] = await Promise.all([getJSON(`${base}/legal-commands`, this.token), getJSON(`${base}/view`, this.token)]);
      }
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        this.notSeat(err.status === 403 ? this.organizerWords() : "This token holds no seat here.");
        return;
      }
      // Offline or a server hiccup: say so instead of a stale "your move", and read again soon.
      this.failures += 1;
      this.setState("offline");
      this.onTurn(false);
      this.status.textContent = `Cannot reach the server (${err.message}): your moves are read again in a moment.`;
      clearTimeout(this.retry);
      this.retry = setTimeout(() => this.refresh(), backoffMs(this.failures));
      return;
    }
    this.failures = 0;
    clearTimeout(this.retry);
    if (view.status === "finished") {
      this.finish();
      return;
    }
    // The same moves at a newer version keep their controls, so a half-filled form survives a record.
    const same = this.legal && this.options.firstChild && movesKey(legal) === movesKey(this.legal);
    this.legal = legal;
    this.view = view;
    this.panel.dataset.seat = legal.seat;
    this.onSeat(this.token, legal.seat);
    if (!this.keep.firstChild) this.keep.replaceChildren(keepLink(this.token), signingNote(this.matchId, legal.seat));
    this.panel.dataset.version = String(legal.version);
    if (same) {
      this.renderStatus();
      this.picking.mark();
      if (!this.posting) this.setState(this.offeredCount() ? "ready" : "waiting");
      return;
    }
    this.picking.reset();
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
    this.labeller = new Labeller(this.catalogue || {}, (this.view || {}).state || null, this.summary.ruleset);
    const { node, forms } = optionGroups(legal, this.labeller, (body) => this.play(body));
    this.forms = forms;
    this.options.replaceChildren(node);
    this.renderStatus();
    this.picking.apply();
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
        + (this.options.querySelector("[data-board-moves]") ? " Pick a piece on the board, then its square."
          : this.board.querySelector(".play-can") ? " Pick from the list, or click the board." : "");
    }
    this.onTurn(view.status === "active" && this.offeredCount() > 0 && (view.to_act || []).includes(legal.seat));
  }

  // A viewer that holds no seat: nothing to offer.
  // What the panel says to the organizer: seats play; disputes and clocks are the desk's.
  organizerWords() {
    const tournament = this.summary && this.summary.tournament_id;
    return `You watch as the organizer: only seats play.${tournament
      ? ` Rule disputes and adjust clocks on the organizer's desk, /organize/${tournament}.` : ""}`;
  }

  notSeat(words) {
    this.onTurn(false);
    this.options.replaceChildren();
    this.panel.dataset.seat = "";
    this.setState("not-seat");
    this.status.textContent = words;
  }

  // The match is over: its outcome instead of moves.
  finish() {
    this.onTurn(false);
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
  async play(body, intent = null, resends = 0) {
    if (this.posting || !this.legal) return;
    const attempt = intent || newIntent(body, this.legal.version);
    // What the seat saw when it chose: a refusal as stale is judged against it.
    const seen = { legal: this.legal, view: this.view };
    this.posting = true;
    this.setState("posting");
    this.showProblem(null);
    const { response, failure } = await sendCommand(this.matchId, this.token, attempt, this.legal.seat);
    if (!response) {
      this.posting = false;
      this.showProblem(problemWords(0, { code: "network_error", detail: failure ? failure.message : "no answer" }, attempt.version),
        () => this.play(attempt.body, attempt));
      this.panel.dataset.last = "network_error";
      this.panel.dataset.posted = String(Number(this.panel.dataset.posted || 0) + 1);
      this.setState("ready");
      return;
    }
    const answer = await response.json().catch(() => ({}));
    if (this.isStale(response.status, answer) && resends < MAX_RESENDS) {
      // Judged before the answer counts as posted: a move sent again has one outcome, its last.
      const again = await this.sendAgain(attempt, seen, problemWords(response.status, answer, attempt.version));
      if (again) {
        this.panel.dataset.resent = String(Number(this.panel.dataset.resent || 0) + 1);
        this.posting = false;
        await this.play(attempt.body, newIntent(attempt.body, this.legal.version), resends + 1);
        return;
      }
    }
    this.posting = false;
    this.panel.dataset.posted = String(Number(this.panel.dataset.posted || 0) + 1);
    if (response.status === 201) {
      this.panel.dataset.last = "ok";
      if (answer.receipt) this.onReceipt(answer.receipt, this.legal.seat);
      this.picking.reset();
    } else {
      this.panel.dataset.last = answer.code || String(response.status);
      if (!this.isStale(response.status, answer) || resends >= MAX_RESENDS) {
        this.showProblem(problemWords(response.status, answer, attempt.version));
      }
    }
    // After a write, a stale version or a clash alike: offer what is legal now.
    await this.refresh();
  }

  // A refusal because another write came first: 412 (stale If-Match) or 409 (written at the same moment).
  isStale(status, answer) {
    return status === 412 || (status === 409 && answer.code !== "seat_unavailable");
  }

  // After a stale refusal: read the moves, the view and the records since the move's version, and
  // decide whether nothing the seat can see changed (play-resend.js); else show `words` and what
  // changed. True when the same body may be sent again for the new version.
  async sendAgain(attempt, seen, words) {
    const base = `/matches/${encodeURIComponent(this.matchId)}`;
    let legal;
    let view;
    let records;
    try {
      [legal, view] = await Promise.all([getJSON(`${base}/legal-commands`, this.token), getJSON(`${base}/view`, this.token)]);
      records = await getAllEvents(this.matchId, this.token, attempt.version);
    } catch (_) {
      this.showProblem(words);
      return false;
    }
    const { resend, why } = decideResend({ seen, legal, view, records, body: attempt.body });
    if (resend) {
      this.legal = legal;
      this.view = view;
      this.panel.dataset.version = String(legal.version);
      return true;
    }
    const changed = records.map((r) => this.describe(r));
    const [headline, details] = words;
    this.showProblem([headline, [`${why}${changed.length ? `: ${changed.slice(-4).join("; ")}` : ""}`, details].join(" · ")]);
    return false;
  }

  // Show a problem (null hides it), with a Retry button when `retry` is given.
  showProblem(words, retry = null) {
    renderProblem(this.problem, words, retry);
  }
}
