// Taking a seat from the watch page: the join form on a match with free seats (POST /matches/{id}/seats),
// and the link that keeps the seat (its token in the URL fragment, which never reaches the server).
// Opened from an entrant's page as `/watch/<id>#invite=…`, the form joins with the entrant's invite
// (`{"invite": …}`): the service then seats the entrant where it is paired, under its name by default.

import { authHeaders } from "./api.js";
import { readInvite, rememberInvite } from "./credentials.js";
import { el } from "./dom.js";
import { problemWords } from "./play-problem.js";
import { keepSeatKey, newSeatKey } from "./seat-keys.js";

/** The join form of the play panel, shown to a page that holds no seat while a seat is free. */
export class JoinBox {
  // `box` is the panel's join element; hooks: showProblem(words) says why joining failed,
  // useToken(token) switches the page to the seat it joined as, onJoined(receipt, seat) keeps the join's receipt.
  constructor(box, { matchId, showProblem, useToken, onJoined = () => {} }) {
    this.box = box;
    this.onJoined = onJoined;
    this.matchId = matchId;
    this.showProblem = showProblem;
    this.useToken = useToken;
    this.summary = null;
    this.seatSelect = null;
    // An entrant's invite for this match, from the fragment (kept for this tab until the seat is taken).
    this.inviteScope = `match:${matchId}`;
    this.invite = readInvite(this.inviteScope);
  }

  /** Draw the form for the page's summary and token (nothing when the page may not join). */
  render(summary, token) {
    this.summary = summary;
    const free = (summary.seats || []).filter((s) => !s.joined).map((s) => s.seat);
    const joinable = !token && summary.status !== "finished" && free.length > 0;
    if (!joinable) {
      this.box.replaceChildren();
      return;
    }
    if (this.invite) {
      if (!this.box.querySelector("form.invite-join")) this.box.replaceChildren(this.inviteForm());
      return;
    }
    if (this.box.querySelector("form")) {
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
    this.box.replaceChildren(form);
  }

  // The form of an entrant's invite: the service picks the entrant's paired seat (or any open unpaired one).
  inviteForm() {
    const name = el("input", { name: "name", maxlength: "64", placeholder: "your entrant name", autocomplete: "nickname" });
    const form = el("form", { class: "play-join-form invite-join", "data-testid": "join-form", autocomplete: "off" },
      el("h3", {}, "Take your seat"),
      el("p", { class: "hint" }, "You join with your entrant invite: your seat is the one the organizer paired you to."),
      el("label", {}, "Name (optional) ", name),
      el("button", { type: "submit" }, "Join with my invite"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.join(name.value.trim(), null, form);
    });
    return form;
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
    if (!name && !this.invite) {
      this.showProblem(["Type a name to join.", ""]);
      return;
    }
    const body = this.invite ? { invite: this.invite } : {};
    if (name) body.name = name;
    if (seat) body.seat = seat;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      // The seat's key pair, made here (none where the page cannot sign: it then plays unsigned).
      const key = await newSeatKey();
      if (key) body.public_key = key.publicKey;
      const response = await fetch(`/matches/${encodeURIComponent(this.matchId)}/seats`, {
        method: "POST",
        headers: authHeaders(null, { "Content-Type": "application/json" }),
        body: JSON.stringify(body),
        cache: "no-store",
      });
      const answer = await response.json().catch(() => ({}));
      if (response.status !== 201) {
        this.showProblem(problemWords(response.status, answer, this.summary.version));
        return;
      }
      this.showProblem(null);
      await keepSeatKey(this.matchId, answer.seat, key);
      // The join's receipt proves the seat was taken, with the key registered here (kept with the moves' ones).
      if (answer.receipt) this.onJoined(answer.receipt, answer.seat);
      // The seat's token takes over; the invite is not needed on this page any more.
      rememberInvite(this.inviteScope, null);
      this.invite = null;
      await this.useToken(answer.token);
    } catch (err) {
      this.showProblem([`Could not join: ${err.message}.`, ""]);
    } finally {
      button.disabled = false;
    }
  }
}

/** The link that opens this seat's page elsewhere (the token travels in the fragment, never to the server). */
export function keepLink(token) {
  const link = `${window.location.origin}${window.location.pathname}#token=${encodeURIComponent(token)}`;
  const field = el("input", { readonly: true, value: link, "aria-label": "link to this seat's page", spellcheck: "false" });
  field.addEventListener("focus", () => field.select());
  return el("details", {}, el("summary", {}, "Keep your seat's link"),
    el("p", { class: "hint" }, "Anyone with this link plays as you. Open it to play from another tab or device."), field);
}
