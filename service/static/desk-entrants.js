// Entrants on the organizer's desk: register one (a display name, optionally a contact), hand over its
// invite link `/entry/<tid>#invite=…` (shown once, with a copy button), issue a new invite (the old one
// stops working), and the list of entrants with the seats they are paired to or hold.

import { copyText, postJSON } from "./credentials.js";
import { el } from "./dom.js";

const PAGE = 100;

/** The invite link of an entrant: the invite rides in the fragment, which never reaches the server. */
export function inviteLink(tournamentId, invite) {
  return `${window.location.origin}/entry/${encodeURIComponent(tournamentId)}#invite=${encodeURIComponent(invite)}`;
}

/** The entrants section of the desk. */
export class Entrants {
  constructor(box, desk) {
    this.box = box;
    this.desk = desk;
    this.entrants = [];
    this.next = null;
    this.build();
  }

  // The registration form, the place the new invite is shown, and the list.
  build() {
    const name = el("input", { id: "entrant-name", required: true, maxlength: "100", autocomplete: "off" });
    const contact = el("input", { id: "entrant-contact", maxlength: "200", autocomplete: "off" });
    this.form = el("form", { class: "entrant-form", "data-testid": "entrant-form" },
      el("div", { class: "field" }, el("label", { for: name.id }, "Name"), name),
      el("div", { class: "field" }, el("label", { for: contact.id }, "Contact (optional, seen by you only)"), contact),
      el("button", { type: "submit" }, "Register entrant"));
    this.form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const body = { name: name.value.trim() };
        if (contact.value.trim()) body.contact = contact.value.trim();
        const entrant = await postJSON(`/tournaments/${encodeURIComponent(this.desk.tid)}/entrants`, this.desk.key, body);
        name.value = "";
        contact.value = "";
        this.showInvite(entrant, "registered");
        await this.load();
      } catch (err) {
        this.showProblem(`Not registered: ${err.message}`);
      }
    });
    this.invite = el("div", { class: "invite-box", "aria-live": "polite" });
    this.list = el("div", { class: "entrant-list" });
    this.box.replaceChildren(this.form, this.invite, this.list);
  }

  // Say why an action was refused, in the invite box.
  showProblem(message) {
    this.invite.replaceChildren(el("p", { class: "error", role: "alert" }, message));
  }

  // The invite link, shown this once: the service keeps only the invite's hash.
  showInvite(entrant, what) {
    const link = inviteLink(this.desk.tid, entrant.invite);
    const field = el("input", { id: "invite-link", readonly: true, value: link, spellcheck: "false", class: "invite-link" });
    const copy = el("button", { type: "button" }, "Copy link");
    const copied = el("span", { class: "muted", role: "status" });
    copy.addEventListener("click", async () => { copied.textContent = (await copyText(link, field)) ? " copied" : " select the link and copy it"; });
    field.addEventListener("focus", () => field.select());
    this.invite.replaceChildren(el("div", { class: "panel invite", "data-entrant": entrant.entrant_id },
      el("p", {}, el("strong", {}, `${entrant.name || entrant.entrant_id} ${what}.`),
        " Send this invite link to them now: it is shown only this once (issue a new one if it is lost)."),
      el("label", { for: field.id }, "Invite link"), field, " ", copy, copied));
  }

  /** Read the entrants (every page) and draw the list; the match form's pairing reads them too. */
  async load() {
    const all = [];
    let after = 0;
    for (;;) {
      const page = await this.desk.get(`/tournaments/${encodeURIComponent(this.desk.tid)}/entrants?after=${after}&limit=${PAGE}`);
      all.push(...page.entrants);
      if (page.next_after === null || page.next_after === undefined || !page.entrants.length) break;
      after = page.next_after;
    }
    this.entrants = all;
    this.render();
    return all;
  }

  // One row per entrant: name, contact, seats, and a new invite on request.
  render() {
    if (!this.entrants.length) {
      this.list.replaceChildren(el("p", { class: "muted" }, "No entrants registered yet."));
      return;
    }
    const rows = this.entrants.map((e) => {
      const reissue = el("button", { type: "button" }, "New invite");
      reissue.addEventListener("click", async () => {
        try {
          const answer = await postJSON(`/tournaments/${encodeURIComponent(this.desk.tid)}/entrants/${encodeURIComponent(e.entrant_id)}/invite`, this.desk.key, {});
          this.showInvite({ ...e, ...answer }, "has a new invite (the previous link no longer works)");
        } catch (err) {
          this.showProblem(`No new invite: ${err.message}`);
        }
      });
      return el("tr", { "data-entrant": e.entrant_id },
        el("td", { "data-label": "Entrant" }, el("strong", {}, e.name), el("span", { class: "muted" }, ` ${e.entrant_id}`)),
        el("td", { "data-label": "Contact" }, e.contact || el("span", { class: "muted" }, "—")),
        el("td", { "data-label": "Seats" }, (e.seats || []).length ? el("ul", { class: "seat-list" }, e.seats.map((s) => el("li", {},
          el("code", {}, s.match_id.slice(0, 8)), ` ${s.seat}`, s.joined ? " (joined)" : " (paired, not joined)"))) : el("span", { class: "muted" }, "none")),
        el("td", { "data-label": "Invite" }, reissue));
    });
    this.list.replaceChildren(el("table", { class: "matches entrants" },
      el("thead", {}, el("tr", {}, ["Entrant", "Contact", "Seats", "Invite"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows)));
  }
}
