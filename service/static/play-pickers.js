// One picker per free field of a choice (domain/choices.py): a select, checkboxes, an ordered row
// of buttons, a text input or a select per pair, each able to say what is still missing.

import { el } from "./dom.js";
import { countWords, domainProblem, same } from "./play-domains.js";
import { fieldWords } from "./play-words.js";

// ----- pickers, one per free field ----------------------------------------------------------------

// A picker: {node, read() → value (undefined: leave out), pick(value) → bool, problem() → text|null}.
export function picker(name, domain, labeller, onChange) {
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
    domain.one_of.map((v, i) => el("option", { value: String(i) }, v === null ? "(leave out)" : labeller.field(name, v))));
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
      group.append(el("label", { class: "play-check" }, box, " ", labeller.field(name, value)));
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
      button.textContent = `${at >= 0 ? `${at + 1}. ` : ""}${labeller.field(name, value)}`;
      button.classList.toggle("picked", at >= 0);
    }
    shown.textContent = order.length ? `order: ${order.map((v) => labeller.field(name, v)).join(" → ")}` : "nothing picked";
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

