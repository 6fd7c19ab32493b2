// Giving out powers by clicks: pick a piece (on the board or in the form), then a power for it.
// It serves a family of choices (domain/choices.py) whose one free field pairs fixed values with
// free keys — gambit-board's `assign`: each power of a pair goes to a different piece, a piece holds
// at most one power of each kind, and which pairs may be given out differs from choice to choice
// (dice in roll mode). The body it sends is formed from the one choice the picks fit.

import { el } from "./dom.js";
import { typeWords } from "./play-words.js";

// The free field of a choice, when it is such a pairing: [name, domain], else null.
function pairing(choice) {
  const free = Object.entries(choice.free || {});
  if (free.length !== 1) return null;
  const [name, domain] = free[0];
  if (!domain || !Array.isArray(domain.pairs) || !domain.lists) return null;
  const fits = domain.pairs.every((part) => Array.isArray(part.values) && part.keys && Array.isArray(part.keys.sequence_of)
    && part.keys.min === part.values.length && part.keys.max === part.values.length);
  return fits ? [name, domain] : null;
}

/** Whether a choice gives fixed values to free keys (pieces), so clicks can form it. */
export function isAssignment(choice) {
  return pairing(choice) !== null;
}

// Values in first-seen order, without repeats.
function distinct(values) {
  return [...new Set(values)];
}

/**
 * One form for every such choice of a type: piece buttons, a row of value buttons per part, and a
 * submit button enabled once the picks form a body of one of the choices. The form element gets
 * `pick(value)`, which a board click calls with a piece (selects it) or a value (gives it out).
 */
export function assignForm(choices, labeller, onPlay) {
  const [name] = pairing(choices[0]);
  const partCount = Math.max(...choices.map((c) => pairing(c)[1].pairs.length));
  const partValues = Array.from({ length: partCount }, (_, i) =>
    distinct(choices.flatMap((c) => (pairing(c)[1].pairs[i] || { values: [] }).values)));
  const keys = distinct(choices.flatMap((c) => pairing(c)[1].pairs.flatMap((part) => part.keys.sequence_of)));
  const given = new Map();   // value -> key it was given to
  let selected = null;

  const form = el("form", { class: "play-choice play-assign", "data-testid": "legal-choice", "data-type": choices[0].type,
    "data-picker": "assign", autocomplete: "off" });
  const keyButtons = keys.map((key) => {
    const button = el("button", { type: "button", class: "play-assign-key", "data-assign-key": key, "aria-pressed": "false" });
    button.addEventListener("click", () => select(key));
    return button;
  });
  const valueButtons = new Map();
  const sizes = partValues.map((_, i) => Math.min(...choices.map((c) => (pairing(c)[1].pairs[i] || { values: [] }).values.length)));
  const rows = partValues.map((values, i) => el("div", { class: "play-assign-values", "data-part": String(i), "data-size": String(sizes[i]) },
    el("span", { class: "hint" }, `${labeller.groupName(values) || `group ${i + 1}`}:`),
    values.map((value) => {
      const button = el("button", { type: "button", class: "play-assign-value", "data-power": value, "aria-pressed": "false" });
      button.addEventListener("click", () => give(value));
      valueButtons.set(value, button);
      return button;
    })));
  const why = el("span", { class: "play-why hint", "aria-live": "polite" });
  const submit = el("button", { type: "submit", class: "play-submit" }, typeWords(choices[0].type));
  const clear = el("button", { type: "button", "data-action": "clear-assignment" }, "clear");
  clear.addEventListener("click", () => { given.clear(); selected = null; update(); });

  // The part a value belongs to.
  const partOf = (value) => partValues.findIndex((values) => values.includes(value));

  // The first choice the picks fit, or null: each of its parts' values given, each to a key of its
  // pool, the keys of a part distinct, and nothing else given.
  function fitting() {
    for (const choice of choices) {
      const parts = pairing(choice)[1].pairs;
      const wanted = parts.flatMap((part) => part.values);
      if (wanted.length !== given.size || !wanted.every((v) => given.has(v))) continue;
      const ok = parts.every((part) => {
        const owners = part.values.map((v) => given.get(v));
        return owners.every((k) => part.keys.sequence_of.includes(k)) && new Set(owners).size === owners.length;
      });
      if (ok) return choice;
    }
    return null;
  }

  // The body the picks form (with the fitting choice's fixed fields): each key's values in part order.
  function body(choice) {
    const out = {};
    for (const part of pairing(choice)[1].pairs) {
      for (const value of part.values) (out[given.get(value)] = out[given.get(value)] || []).push(value);
    }
    return { type: choice.type, ...(choice.fixed || {}), [name]: out };
  }

  // Select a key: the next value clicked goes to it.
  function select(key) {
    selected = selected === key ? null : key;
    update();
  }

  // Give a value to the selected key (a key holds one value of each part); again takes it back.
  function give(value) {
    if (selected === null) {
      why.textContent = "pick a piece first";
      return;
    }
    if (given.get(value) === selected) given.delete(value);
    else {
      const part = partOf(value);
      for (const [other, key] of [...given]) if (key === selected && partOf(other) === part) given.delete(other);
      given.set(value, selected);
    }
    update();
  }

  // Draw the picks, enable the button only for a body one of the choices forms, say what is missing.
  function update() {
    for (const button of keyButtons) {
      const key = button.dataset.assignKey;
      const held = [...given].filter(([, k]) => k === key).map(([v]) => labeller.value(v));
      button.replaceChildren(el("strong", {}, labeller.value(key)), held.length ? `: ${held.join(", ")}` : "");
      button.setAttribute("aria-pressed", String(key === selected));
    }
    for (const [value, button] of valueButtons) {
      const owner = given.get(value);
      button.textContent = `${labeller.value(value)}${owner ? ` → ${owner}` : ""}`;
      button.setAttribute("aria-pressed", String(Boolean(owner)));
    }
    const choice = fitting();
    const needed = Math.min(...choices.map((c) => pairing(c)[1].pairs.reduce((n, part) => n + part.values.length, 0)));
    submit.disabled = choice === null;
    why.textContent = choice ? "" : given.size < needed ? `give out ${needed - given.size} more`
      : "that set of powers is not on offer";
    form.dataset.body = choice ? JSON.stringify(body(choice)) : "";
    form.dataset.selected = selected || "";
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const choice = fitting();
    if (choice) onPlay(body(choice));
  });
  form.pick = (value) => {
    if (keys.includes(value)) {
      selected = value;
      update();
      return true;
    }
    if (valueButtons.has(value)) {
      give(value);
      return true;
    }
    return false;
  };
  form.append(el("h4", {}, typeWords(choices[0].type)),
    el("p", { class: "hint" }, "Pick a piece (on the board or here), then a power for it; a piece holds one of each kind."),
    el("div", { class: "play-assign-keys" }, keyButtons), ...rows,
    el("div", { class: "play-submit-row" }, submit, clear, why));
  update();
  return form;
}
