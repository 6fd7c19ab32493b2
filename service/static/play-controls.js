// The seat's legal moves as controls: one button per listed command, one form per choice (a family
// of bodies, domain/choices.py) with a picker per free field that forms a valid body, and the words
// that label them (card names from the ruleset's catalogue).

import { el } from "./dom.js";

const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };
// More choices of one type than this share one form with a "variant" select.
const MAX_SEPARATE_CHOICES = 3;
// A type with more listed commands than this is folded until opened (or narrowed by board clicks).
const MAX_OPEN_COMMANDS = 12;

// ----- words ----------------------------------------------------------------------------------

/** A command type or field name in plain words: "call_bluff" → "Call bluff". */
export function typeWords(type) {
  const text = String(type).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// A field name in plain words.
function fieldWords(name) {
  return String(name).replaceAll("_", " ");
}

/** Names for the ids a command may carry: catalogue cards, and a seat's card instances seen in its view. */
export class Labeller {
  // `catalogue` is GET /rulesets/{id}'s catalogue; `state` the seat's view state (may be null).
  constructor(catalogue, state) {
    this.names = new Map();
    collectCatalogue(catalogue, this.names);
    if (state) collectInstances(state, this.names);
  }

  /** A scalar in words: a card's name with its id ("Lantern Acolyte (p1-03)"), else the value itself. */
  value(value) {
    if (value === null || value === undefined) return "none";
    if (typeof value === "boolean") return value ? "yes" : "no";
    const name = this.names.get(String(value));
    return name && name !== String(value) ? `${name} (${value})` : fieldWords(value);
  }

  /** Any field value in words: lists joined, objects as "key → value" pairs. */
  any(value) {
    if (Array.isArray(value)) return value.length ? value.map((v) => this.any(v)).join(", ") : "none";
    if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      return entries.length ? entries.map(([k, v]) => `${this.value(k)} → ${this.any(v)}`).join("; ") : "none";
    }
    return this.value(value);
  }

  /** A body's fields in words ("card: Lantern Acolyte (p1-03) · window: attack declared"). */
  fields(body) {
    return Object.entries(body).filter(([k]) => k !== "type").map(([k, v]) => `${fieldWords(k)}: ${this.any(v)}`).join(" · ");
  }

  /** A whole body as a label: its type, then each field. */
  body(body) {
    const fields = this.fields(body);
    return fields ? `${typeWords(body.type)} · ${fields}` : typeWords(body.type);
  }
}

// Every catalogue entry with an id: its name, else its rank and suit, else its face.
function collectCatalogue(node, names) {
  if (Array.isArray(node)) {
    for (const item of node) collectCatalogue(item, names);
    return;
  }
  if (node === null || typeof node !== "object") return;
  if (typeof node.id === "string") {
    const suit = SUIT_SIGNS[node.suit] || node.suit;
    const name = node.name || (node.rank !== undefined ? `${node.rank}${suit ? ` ${suit}` : ""}` : null)
      || (node.face !== undefined ? `face ${node.face}` : null);
    if (name) names.set(node.id, String(name));
  }
  for (const value of Object.values(node)) collectCatalogue(value, names);
}

// Card instances in a view ({"card": "p1-03", "id": "W1"}): the instance takes its card's name.
function collectInstances(node, names) {
  if (Array.isArray(node)) {
    for (const item of node) collectInstances(item, names);
    return;
  }
  if (node === null || typeof node !== "object") return;
  if (typeof node.card === "string" && typeof node.id === "string" && names.has(node.id) && !names.has(node.card)) {
    names.set(node.card, names.get(node.id));
  }
  for (const value of Object.values(node)) collectInstances(value, names);
}

// ----- what an option mentions (for board clicks) ---------------------------------------------

// Every scalar inside a JSON value, as strings (object keys included).
function scalars(value, out) {
  if (Array.isArray(value)) value.forEach((v) => scalars(v, out));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      scalars(v, out);
    }
  } else if (value !== null && value !== undefined) out.add(String(value));
  return out;
}

// Every value a domain may put in its field.
function domainValues(domain, out) {
  if ("one_of" in domain) scalars(domain.one_of, out);
  else if ("subset_of" in domain) scalars(domain.subset_of, out);
  else if ("sequence_of" in domain) scalars(domain.sequence_of, out);
  else if ("union_of" in domain) domain.union_of.forEach((part) => domainValues(part, out));
  else if ("pairs" in domain) {
    for (const part of domain.pairs) {
      for (const side of [part.keys, part.values]) {
        if (Array.isArray(side)) scalars(side, out);
        else domainValues(side, out);
      }
    }
  }
  return out;
}

/** The values a listed command or a choice mentions: what a click on the board can match. */
export function mentioned(option) {
  const out = new Set();
  if (option.free) {
    scalars(option.fixed || {}, out);
    for (const domain of Object.values(option.free)) domainValues(domain, out);
  } else {
    for (const [key, value] of Object.entries(option)) if (key !== "type") scalars(value, out);
  }
  return out;
}

// ----- checking a formed value against its domain (as domain/choices.py admits it) ---------------

// JSON equality of two values (key order ignored).
function same(a, b) {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

// A copy with object keys sorted, so equal values stringify alike.
function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  }
  return value;
}

// Distinct members of a pool, between low and high of them.
function distinctMembers(value, pool, low, high) {
  if (!Array.isArray(value) || value.length < low || value.length > high) return false;
  const seen = [];
  for (const item of value) {
    if (!pool.some((p) => same(p, item)) || seen.some((s) => same(s, item))) return false;
    seen.push(item);
  }
  return true;
}

/** Why a value is not in a domain (a short sentence), or null when it is. */
export function domainProblem(domain, value) {
  if ("one_of" in domain) return domain.one_of.some((v) => same(v, value)) ? null : "choose one";
  if ("subset_of" in domain || "sequence_of" in domain) {
    const pool = domain.subset_of || domain.sequence_of;
    return distinctMembers(value, pool, domain.min, domain.max) ? null : `pick ${countWords(domain.min, domain.max)}`;
  }
  if ("union_of" in domain) {
    const counts = domain.union_of.map(() => 0);
    for (const item of value || []) {
      const owner = domain.union_of.findIndex((part) => part.subset_of.some((p) => same(p, item)));
      if (owner < 0) return "pick from the lists";
      counts[owner] += 1;
    }
    const bad = domain.union_of.findIndex((part, i) => counts[i] < part.min || counts[i] > part.max);
    return bad < 0 ? null : `pick ${countWords(domain.union_of[bad].min, domain.union_of[bad].max)} from group ${bad + 1}`;
  }
  if ("text" in domain) {
    const length = [...(value || "")].length;
    const { min_length: low, max_length: high } = domain.text;
    return typeof value === "string" && length >= low && length <= high ? null : `write ${low} to ${high} characters`;
  }
  return null; // pairs: the pickers keep every slot filled and each part's picks distinct
}

// "2", "0 to 1", "1 to 3".
function countWords(low, high) {
  return low === high ? String(low) : `${low} to ${high}`;
}

// ----- listed commands --------------------------------------------------------------------------

/** The command types that give up the match: offered as a Resign (or Concede) button that asks first. */
export const GIVING_UP = ["resign", "concede"];

/** A button that plays one listed command (giving up asks for a confirming second click, or Cancel). */
export function commandButton(body, labeller, onPlay) {
  const danger = GIVING_UP.includes(body.type);
  const fields = labeller.fields(body);
  const label = () => [el("strong", {}, typeWords(body.type)), fields ? ` · ${fields}` : ""];
  const button = el("button", {
    type: "button", class: `play-command${danger ? " danger" : ""}`, "data-testid": "legal-command",
    "data-type": body.type, "data-body": JSON.stringify(body), title: labeller.body(body),
    "data-give-up": danger ? body.type : null,
  }, label());
  const cancel = danger ? el("button", { type: "button", class: "play-cancel", "data-action": "cancel-give-up", hidden: true }, "Cancel") : null;
  // Back to the plain button: nothing was sent.
  const disarm = () => {
    button.dataset.armed = "no";
    button.replaceChildren(...label());
    cancel.hidden = true;
  };
  if (cancel) cancel.addEventListener("click", disarm);
  button.addEventListener("click", () => {
    // Giving up the match takes a second click, so a stray tap cannot end it.
    if (danger && button.dataset.armed !== "yes") {
      button.dataset.armed = "yes";
      button.replaceChildren(el("strong", {}, `Confirm: ${typeWords(body.type).toLowerCase()} this match?`));
      cancel.hidden = false;
      return;
    }
    onPlay(body);
  });
  return cancel ? el("span", { class: "play-give-up" }, button, cancel) : button;
}

// ----- pickers, one per free field ----------------------------------------------------------------

// A picker: {node, read() → value (undefined: leave out), pick(value) → bool, problem() → text|null}.
function picker(name, domain, labeller, onChange) {
  if ("one_of" in domain) return selectPicker(name, domain, labeller, onChange);
  if ("subset_of" in domain) return checkboxPicker(name, domain, [domain], labeller, onChange);
  if ("union_of" in domain) return checkboxPicker(name, domain, domain.union_of, labeller, onChange);
  if ("sequence_of" in domain) return sequencePicker(name, domain, labeller, onChange);
  if ("text" in domain) return textPicker(name, domain, onChange);
  return pairsPicker(name, domain, labeller, onChange);
}

// A labelled group around a picker's inputs.
function fieldset(name, kind, hint, ...children) {
  return el("fieldset", { class: `play-field ${kind}`, "data-field": name, "data-domain": kind },
    el("legend", {}, fieldWords(name), hint ? el("span", { class: "hint" }, ` (${hint})`) : ""), ...children);
}

// one_of: a select (null means "leave the field out").
function selectPicker(name, domain, labeller, onChange) {
  const select = el("select", { name, "data-picker": "one_of" },
    domain.one_of.map((v, i) => el("option", { value: String(i) }, v === null ? "(leave out)" : labeller.any(v))));
  select.addEventListener("change", onChange);
  return {
    node: fieldset(name, "one_of", "", select),
    read: () => {
      const value = domain.one_of[Number(select.value)];
      return value === null ? undefined : value;
    },
    pick: (value) => {
      const index = domain.one_of.findIndex((v) => String(v) === value);
      if (index < 0) return false;
      select.value = String(index);
      onChange();
      return true;
    },
    problem: () => null,
  };
}

// subset_of and union_of: checkboxes, one group per part, each with its bounds; the first `min` ticked.
function checkboxPicker(name, domain, parts, labeller, onChange) {
  const boxes = [];
  const groups = parts.map((part, index) => {
    const group = el("div", { class: "play-group-boxes", "data-part": String(index), "data-min": String(part.min),
      "data-max": String(part.max) },
    el("span", { class: "hint" }, `${parts.length > 1 ? `group ${index + 1}: ` : ""}pick ${countWords(part.min, part.max)}`));
    part.subset_of.forEach((value, i) => {
      const box = el("input", { type: "checkbox", "data-value": JSON.stringify(value) });
      box.checked = i < part.min;
      box.addEventListener("change", onChange);
      boxes.push([box, value]);
      group.append(el("label", { class: "play-check" }, box, " ", labeller.any(value)));
    });
    return group;
  });
  const kind = "union_of" in domain ? "union_of" : "subset_of";
  const node = fieldset(name, kind, "", groups);
  // A list that can only stay empty (nothing to pick) needs no control.
  node.hidden = boxes.length === 0;
  return {
    node,
    read: () => boxes.filter(([box]) => box.checked).map(([, value]) => value),
    pick: (value) => {
      const hit = boxes.find(([, v]) => String(v) === value);
      if (!hit) return false;
      hit[0].checked = !hit[0].checked;
      onChange();
      return true;
    },
    problem: () => domainProblem(domain, boxes.filter(([box]) => box.checked).map(([, value]) => value)),
  };
}

// sequence_of: buttons picked in order (a number shows each one's place), with a clear button.
function sequencePicker(name, domain, labeller, onChange) {
  let order = domain.sequence_of.slice(0, domain.min);
  const buttons = domain.sequence_of.map((value) => {
    const button = el("button", { type: "button", class: "play-seq", "data-value": JSON.stringify(value) });
    button.addEventListener("click", () => toggle(value));
    return [button, value];
  });
  const shown = el("span", { class: "play-order" });
  const clear = el("button", { type: "button", class: "play-clear", "data-action": "clear-sequence" }, "clear");
  clear.addEventListener("click", () => { order = []; draw(); onChange(); });
  // Add a value at the end of the order, or take it out.
  function toggle(value) {
    const at = order.findIndex((v) => same(v, value));
    if (at >= 0) order.splice(at, 1);
    else order.push(value);
    draw();
    onChange();
  }
  // Number each picked button with its place.
  function draw() {
    for (const [button, value] of buttons) {
      const at = order.findIndex((v) => same(v, value));
      button.textContent = `${at >= 0 ? `${at + 1}. ` : ""}${labeller.any(value)}`;
      button.classList.toggle("picked", at >= 0);
    }
    shown.textContent = order.length ? `order: ${order.map((v) => labeller.any(v)).join(" → ")}` : "nothing picked";
  }
  draw();
  return {
    node: fieldset(name, "sequence_of", `pick ${countWords(domain.min, domain.max)}, in order`,
      el("div", { class: "play-seq-row", "data-min": String(domain.min), "data-max": String(domain.max) },
        buttons.map(([b]) => b), clear), shown),
    read: () => order.slice(),
    pick: (value) => {
      const hit = buttons.find(([, v]) => String(v) === value);
      if (!hit) return false;
      toggle(hit[1]);
      return true;
    },
    problem: () => domainProblem(domain, order),
  };
}

// text: an input with the length bounds (in code points, as the server counts).
function textPicker(name, domain, onChange) {
  const { min_length: low, max_length: high } = domain.text;
  const input = el("input", { type: "text", name, "data-picker": "text", maxlength: String(high * 2),
    placeholder: `${low} to ${high} characters`, autocomplete: "off", spellcheck: "false" });
  input.addEventListener("input", onChange);
  return {
    node: fieldset(name, "text", `${low} to ${high} characters`, input),
    read: () => input.value,
    pick: () => false,
    problem: () => domainProblem(domain, input.value),
  };
}

// pairs: for each fixed item of each part a select of the free side; each part's picks distinct.
function pairsPicker(name, domain, labeller, onChange) {
  const slots = [];
  const rows = domain.pairs.map((part, index) => {
    const freeKeys = !Array.isArray(part.keys);
    const fixed = freeKeys ? part.values : part.keys;
    const pool = (freeKeys ? part.keys : part.values).sequence_of;
    const row = el("div", { class: "play-pairs-part", "data-part": String(index) });
    fixed.forEach((item, i) => {
      const select = el("select", { "data-picker": "pairs", "data-part": String(index) },
        pool.map((v, j) => el("option", { value: String(j) }, labeller.any(v))));
      select.value = String(i % Math.max(pool.length, 1));
      select.addEventListener("change", onChange);
      slots.push({ part: index, freeKeys, item, pool, select });
      row.append(el("label", { class: "play-pair" },
        freeKeys ? [select, " → ", labeller.any(item)] : [labeller.any(item), " → ", select]));
    });
    return row;
  });
  // The chosen free value of each slot.
  const picked = (slot) => slot.pool[Number(slot.select.value)];
  return {
    node: fieldset(name, "pairs", "each choice once per group", rows),
    read: () => {
      const out = {};
      for (const slot of slots) {
        const [key, value] = slot.freeKeys ? [picked(slot), slot.item] : [slot.item, picked(slot)];
        if (domain.lists) (out[key] = out[key] || []).push(value);
        else out[key] = value;
      }
      return out;
    },
    pick: () => false,
    problem: () => {
      for (const part of new Set(slots.map((s) => s.part))) {
        const chosen = slots.filter((s) => s.part === part).map((s) => s.select.value);
        if (new Set(chosen).size !== chosen.length) return "each choice may be used once per group";
      }
      return null;
    },
  };
}

// ----- choice forms -------------------------------------------------------------------------------

// A short name for one choice of a type (what tells it from its siblings): fixed fields and fixed pair sides.
function variantLabel(choice, labeller) {
  const parts = Object.entries(choice.fixed || {}).map(([k, v]) => `${fieldWords(k)}: ${labeller.any(v)}`);
  for (const [name, domain] of Object.entries(choice.free)) {
    if ("pairs" in domain) {
      const fixedSides = domain.pairs.map((p) => labeller.any(Array.isArray(p.keys) ? p.keys : p.values));
      parts.push(`${fieldWords(name)}: ${fixedSides.join(" | ")}`);
    }
  }
  return parts.join(" · ") || typeWords(choice.type);
}

/**
 * A form for choices of one type: a "variant" select when there are several, a picker per free
 * field, and a submit button that plays the formed body (disabled, with the reason, while invalid).
 * The form element gets `pick(value)`: a board click setting a field that can take that value.
 */
export function choiceForm(choices, labeller, onPlay) {
  const form = el("form", { class: "play-choice", "data-testid": "legal-choice", "data-type": choices[0].type,
    autocomplete: "off" });
  const variant = choices.length > 1
    ? el("select", { "data-role": "variant", "aria-label": "variant" },
      choices.map((c, i) => el("option", { value: String(i) }, variantLabel(c, labeller))))
    : null;
  const fields = el("div", { class: "play-fields" });
  const why = el("span", { class: "play-why hint" });
  const submit = el("button", { type: "submit", class: "play-submit" }, typeWords(choices[0].type));
  let pickers = {};
  let choice = choices[0];

  // The body the form forms now: type, fixed fields, and each picker's value.
  function body() {
    const out = { type: choice.type, ...(choice.fixed || {}) };
    for (const [name, p] of Object.entries(pickers)) {
      const value = p.read();
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  // Enable the button only for a valid body, and say what is missing.
  function update() {
    const problems = Object.entries(pickers).map(([name, p]) => [name, p.problem()]).filter(([, p]) => p);
    submit.disabled = problems.length > 0;
    why.textContent = problems.map(([name, p]) => `${fieldWords(name)}: ${p}`).join("; ");
    form.dataset.body = JSON.stringify(body());
  }
  // Show the pickers of the chosen variant.
  function build() {
    choice = choices[variant ? Number(variant.value) : 0];
    pickers = Object.fromEntries(Object.entries(choice.free).map(([name, domain]) => [name, picker(name, domain, labeller, update)]));
    const fixed = Object.entries(choice.fixed || {});
    fields.replaceChildren(
      fixed.length && !variant ? el("p", { class: "play-fixed" }, fixed.map(([k, v]) => `${fieldWords(k)}: ${labeller.any(v)}`).join(" · ")) : "",
      ...Object.values(pickers).map((p) => p.node));
    update();
  }
  if (variant) variant.addEventListener("change", build);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    update();
    if (!submit.disabled) onPlay(body());
  });
  form.pick = (value) => Object.values(pickers).some((p) => p.pick(value));
  build();
  form.append(el("h4", {}, typeWords(choices[0].type), choices.length > 1 ? el("span", { class: "hint" }, ` · ${choices.length} variants`) : ""),
    variant ? el("label", { class: "play-variant" }, "variant ", variant) : "", fields,
    el("div", { class: "play-submit-row" }, submit, why));
  return form;
}

/**
 * Every offered move, grouped by type (giving up last): buttons for listed commands, forms for
 * choices. Returns {node, forms} — `forms` are the choice forms, for board clicks.
 */
export function optionGroups(legal, labeller, onPlay) {
  const types = [...new Set([...legal.commands, ...legal.choices].map((o) => o.type))];
  types.sort((a, b) => (GIVING_UP.includes(a) ? 1 : 0) - (GIVING_UP.includes(b) ? 1 : 0));
  const forms = [];
  const groups = types.map((type) => {
    const commands = legal.commands.filter((c) => c.type === type);
    const choices = legal.choices.filter((c) => c.type === type);
    const group = el("section", { class: "play-type", "data-type": type });
    if (commands.length) {
      const buttons = el("div", { class: "play-buttons" }, commands.map((c) => commandButton(c, labeller, onPlay)));
      if (commands.length > MAX_OPEN_COMMANDS) {
        group.append(el("details", { class: "play-many" },
          el("summary", {}, `${typeWords(type)} · ${commands.length} moves`), buttons));
      } else {
        group.append(el("h4", {}, typeWords(type)), buttons);
      }
    }
    const batches = choices.length > MAX_SEPARATE_CHOICES ? [choices] : choices.map((c) => [c]);
    for (const batch of batches) {
      const form = choiceForm(batch, labeller, onPlay);
      forms.push(form);
      group.append(form);
    }
    return group;
  });
  return { node: el("div", { class: "play-options" }, groups), forms };
}
