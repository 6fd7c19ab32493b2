// The "create a match" form of the index page and the organizer's desk: pick a ruleset, then a form
// built from GET /rulesets/{id} — every config field with its range and default, the match options
// (spectator delay, time control) — and, on the desk, an optional entrant for each seat.

import { ApiError, getJSON, getRuleset } from "./api.js";
import { postJSON } from "./credentials.js";
import { el, scalar, words } from "./dom.js";

let nextId = 0;
// A unique id for a label's `for`.
function uid(prefix) {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

// A labelled control with the field's range and default as its hint (aria-describedby).
function labelled(field, control, hint) {
  control.id = control.id || uid(`cfg-${field.name}`);
  const hintId = uid("hint");
  control.setAttribute("aria-describedby", hintId);
  return el("div", { class: "field", "data-field": field.name },
    el("label", { for: control.id }, words(field.name)), control,
    el("small", { id: hintId, class: "hint" }, hint));
}

// "2 to 8, default 2" / "one of a, b; default a" / "default {…}".
function rangeText(field) {
  const parts = [];
  if (field.minimum !== undefined || field.maximum !== undefined) parts.push(`${scalar(field.minimum)} to ${scalar(field.maximum)}`);
  if (field.choices) parts.push(`one of ${field.choices.join(", ")}`);
  if (field.constraint) parts.push(field.constraint.replaceAll("`", ""));
  parts.push(`default ${typeof field.default === "object" ? JSON.stringify(field.default) : scalar(field.default)}`);
  const about = (field.description || "").replaceAll("`", "");
  // A long explanation is cut to its first part; the rules and config documents hold the rest.
  const brief = about.length > 160 ? `${about.slice(0, about.lastIndexOf(" ", 157))}…` : about;
  return `${parts.join("; ")}${brief ? ` — ${brief}` : ""}`;
}

// The variants of an object option whose schema is a oneOf told apart by a `kind` constant.
function kindVariants(field) {
  const variants = (field.schema && field.schema.oneOf) || [];
  if (!variants.length || !variants.every((v) => v.properties && v.properties.kind && "const" in v.properties.kind)) return null;
  return variants.map((v) => ({ kind: v.properties.kind.const, properties: v.properties, required: v.required || [] }));
}

/** One input per declared field; read() gives its value (or throws an Error naming the field). */
function control(field) {
  if (field.type === "integer") {
    const input = el("input", { type: "number", step: "1", inputmode: "numeric", value: String(field.default ?? ""),
      min: field.minimum, max: field.maximum, name: field.name });
    return { node: labelled(field, input, rangeText(field)), read: () => {
      const value = Number(input.value);
      if (input.value.trim() === "" || !Number.isInteger(value)) throw new Error(`${words(field.name)} must be a whole number`);
      return value;
    } };
  }
  if (field.type === "boolean") {
    const input = el("input", { type: "checkbox", name: field.name, checked: field.default === true });
    const node = labelled(field, input, rangeText(field));
    node.classList.add("check");
    return { node, read: () => input.checked };
  }
  if (field.type === "string" && Array.isArray(field.choices)) {
    const select = el("select", { name: field.name }, field.choices.map((c) => el("option", { value: c, selected: c === field.default }, c)));
    return { node: labelled(field, select, rangeText(field)), read: () => select.value };
  }
  const variants = field.type === "object" ? kindVariants(field) : null;
  if (variants) return variantControl(field, variants);
  if (field.type === "string") {
    const input = el("input", { type: "text", name: field.name, value: field.default ?? "" });
    return { node: labelled(field, input, rangeText(field)), read: () => input.value };
  }
  // Objects and lists: their JSON, starting from the default.
  const area = el("textarea", { name: field.name, rows: "4", spellcheck: "false", class: "json" });
  area.value = JSON.stringify(field.default, null, 1);
  return { node: labelled(field, area, `JSON; ${rangeText(field)}`), read: () => {
    try { return JSON.parse(area.value); } catch (err) { throw new Error(`${words(field.name)} is not valid JSON (${err.message})`); }
  } };
}

// An option with variants (the time control): a kind select, then the whole-number fields of that kind.
function variantControl(field, variants) {
  const kind = el("select", { name: `${field.name}.kind` },
    variants.map((v) => el("option", { value: v.kind, selected: v.kind === (field.default || {}).kind }, words(v.kind))));
  const boxes = new Map();
  for (const variant of variants) {
    const inputs = Object.entries(variant.properties).filter(([name]) => name !== "kind").map(([name, schema]) => {
      const sub = { name: `${field.name}.${name}`, type: schema.type, minimum: schema.minimum, maximum: schema.maximum,
        default: schema.default ?? schema.minimum };
      return [name, control(sub)];
    });
    boxes.set(variant.kind, { inputs, box: el("div", { class: "variant" }, inputs.map(([, c]) => c.node)) });
  }
  const show = () => { for (const [k, v] of boxes) v.box.hidden = k !== kind.value; };
  kind.addEventListener("change", show);
  show();
  const node = el("fieldset", { class: "variant-field", "data-field": field.name },
    el("legend", {}, words(field.name)), labelled({ name: "kind" }, kind, rangeText(field)),
    [...boxes.values()].map((v) => v.box));
  return { node, read: () => {
    const value = { kind: kind.value };
    for (const [name, c] of boxes.get(kind.value).inputs) value[name] = c.read();
    return value;
  } };
}

/** The seats a config gives: the ruleset's seats, with its p1…pN run as long as `players` (or the pilots) say. */
export function seatsFor(defaultSeats, config) {
  const numbered = defaultSeats.filter((s) => /^p\d+$/.test(s));
  const others = defaultSeats.filter((s) => !/^p\d+$/.test(s));
  let count = numbered.length;
  if (Number.isInteger(config.players)) count = numbered.length ? config.players - others.length : 0;
  const keyed = Object.values(config).find((v) => v && typeof v === "object" && !Array.isArray(v)
    && Object.keys(v).length && Object.keys(v).every((k) => /^p\d+$/.test(k)));
  if (!Number.isInteger(config.players) && keyed) count = Object.keys(keyed).length;
  if (!numbered.length) return defaultSeats;
  return [...others, ...Array.from({ length: Math.max(count, 0) }, (_, i) => `p${i + 1}`)];
}

/** The create-match form. Options: tournamentId and key (the desk), entrants() the registered ones, onCreated(summary). */
export class MatchForm {
  constructor(box, { tournamentId = null, key = null, entrants = null, onCreated = null } = {}) {
    this.box = box;
    this.tournamentId = tournamentId;
    this.key = key;
    this.entrants = entrants;
    this.onCreated = onCreated;
    this.rulesets = [];
    this.controls = [];
    this.pairing = new Map();
  }

  /** Load the rulesets and draw the form. */
  async start() {
    this.rulesets = (await getJSON("/rulesets", null)).rulesets;
    const select = el("select", { id: uid("ruleset"), name: "ruleset", "data-testid": "ruleset-select" },
      this.rulesets.map((r) => el("option", { value: r.ruleset }, r.ruleset)));
    this.fields = el("div", { class: "config-fields" });
    this.seatBox = el("div", { class: "seat-pairing" });
    this.problem = el("p", { class: "error", role: "alert", hidden: true });
    this.result = el("div", { class: "created", "aria-live": "polite" });
    this.submit = el("button", { type: "submit" }, "Create match");
    const form = el("form", { class: "match-form", "data-testid": "create-match-form", autocomplete: "off" },
      el("div", { class: "field" }, el("label", { for: select.id }, "Game"), select),
      this.fields, this.seatBox, this.problem, this.submit);
    select.addEventListener("change", () => this.pick(select.value).catch((err) => this.say(err.message)));
    form.addEventListener("submit", (event) => { event.preventDefault(); this.create(); });
    form.addEventListener("change", (event) => { if (event.target.name === "players" || event.target.tagName === "TEXTAREA") this.drawSeats(); });
    this.box.replaceChildren(form, this.result);
    await this.pick(select.value);
  }

  // Build the fields of one ruleset from its declarations.
  async pick(ruleset) {
    this.ruleset = ruleset;
    const detail = await getRuleset(ruleset);
    this.defaultSeats = (this.rulesets.find((r) => r.ruleset === ruleset) || {}).seats || [];
    this.controls = detail.config_fields.map((f) => [f, control(f)]);
    this.options = (detail.match_options || []).map((f) => [f, control(f)]);
    this.fields.replaceChildren(
      el("fieldset", {}, el("legend", {}, `${ruleset} config`), this.controls.map(([, c]) => c.node)),
      el("fieldset", {}, el("legend", {}, "Match options"), this.options.map(([, c]) => c.node)));
    this.drawSeats();
  }

  // The game config as typed (throws an Error naming a bad field).
  config() {
    const config = {};
    for (const [field, c] of this.controls) config[field.name] = c.read();
    for (const [field, c] of this.options) {
      const value = c.read();
      // An option at its default is left out: the match then echoes only its game's config.
      if (JSON.stringify(value) !== JSON.stringify(field.default)) config[field.name] = value;
    }
    return config;
  }

  // One entrant select per seat (on the desk, when entrants are registered).
  drawSeats() {
    if (!this.entrants) return;
    let seats;
    try { seats = seatsFor(this.defaultSeats, this.config()); } catch (_) { return; }
    const entrants = this.entrants();
    this.pairing = new Map(seats.map((seat) => {
      const select = el("select", { id: uid(`seat-${seat}`), name: `entrant-${seat}`, "data-seat": seat },
        el("option", { value: "" }, "open seat (anyone with the link)"),
        entrants.map((e) => el("option", { value: e.entrant_id }, `${e.name} (${e.entrant_id})`)));
      return [seat, select];
    }));
    this.seatBox.replaceChildren(el("fieldset", {}, el("legend", {}, "Pairing: an entrant for each seat (optional)"),
      entrants.length ? null : el("p", { class: "hint" }, "Register entrants first to pair them; open seats take anyone."),
      [...this.pairing].map(([seat, select]) => el("div", { class: "field" }, el("label", { for: select.id }, `seat ${seat}`), select))));
  }

  // Show (or with null hide) why the form was refused.
  say(message) {
    this.problem.hidden = !message;
    this.problem.textContent = message || "";
  }

  // POST /matches, then show the join links.
  async create() {
    let body;
    try {
      body = { ruleset: this.ruleset, config: this.config() };
    } catch (err) {
      this.say(err.message);
      return;
    }
    if (this.tournamentId) body.tournament_id = this.tournamentId;
    const pairing = Object.fromEntries([...this.pairing].filter(([, s]) => s.value).map(([seat, s]) => [seat, s.value]));
    if (Object.keys(pairing).length) body.entrants = pairing;
    this.submit.disabled = true;
    try {
      const summary = await postJSON("/matches", this.key, body);
      this.say(null);
      this.showCreated(summary);
      if (this.onCreated) this.onCreated(summary);
    } catch (err) {
      const field = err.problem && err.problem.field ? ` (${err.problem.field})` : "";
      this.say(err instanceof ApiError ? `Not created: ${err.message}${field}` : err.message);
    } finally {
      this.submit.disabled = false;
    }
  }

  // The new match's links: one per seat, saying which entrant it is for.
  showCreated(summary) {
    const names = new Map((this.entrants ? this.entrants() : []).map((e) => [e.entrant_id, e.name]));
    const watch = `${window.location.origin}/watch/${encodeURIComponent(summary.match_id)}`;
    this.result.replaceChildren(el("div", { class: "panel created-match", "data-created-match": summary.match_id },
      el("h3", {}, `Created ${summary.ruleset} match `, el("code", {}, summary.match_id)),
      el("p", { class: "hint" }, "Send each player the link of their seat; they join on that page."),
      el("ul", { class: "seat-links" }, summary.seats.map((seat) => {
        const entrant = seat.entrant_id ? names.get(seat.entrant_id) || seat.entrant_id : null;
        return el("li", { "data-seat": seat.seat },
          el("strong", {}, `seat ${seat.seat}`), " — ",
          el("a", { href: `/watch/${encodeURIComponent(summary.match_id)}` }, watch), " ",
          entrant ? el("span", {}, `for ${entrant} (joins with their invite link from the desk)`) : el("span", { class: "hint" }, "open: anyone with the link may join"));
      }))));
  }
}
