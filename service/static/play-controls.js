// The seat's legal moves as controls: one button per listed command, one form per choice (a family
// of bodies, domain/choices.py) with a picker per free field that forms a valid body. The words
// live in play-words.js, the pickers in play-pickers.js, domain checks in play-domains.js.

import { el } from "./dom.js";
import { assignForm, isAssignment } from "./play-assign.js";
import { picker } from "./play-pickers.js";
import { fieldWords, typeWords } from "./play-words.js";

export { Labeller, typeWords } from "./play-words.js";
export { domainProblem, mentioned } from "./play-domains.js";

// More choices of one type than this share one form with a "variant" select.
const MAX_SEPARATE_CHOICES = 3;
// A type with more listed commands than this is folded until opened (or narrowed by board clicks).
const MAX_OPEN_COMMANDS = 12;

// ----- listed commands --------------------------------------------------------------------------

/** Whether a listed command moves a piece to a square: such moves are picked on the board. */
export function isBoardMove(body) {
  return typeof body.piece === "string" && typeof body.to === "string";
}

/** What makes two listed commands the same move: their body, with claims in any order alike. */
export function moveKey(body) {
  const claims = Array.isArray(body.claims) ? { claims: [...body.claims].sort() } : {};
  return JSON.stringify(Object.entries({ ...body, ...claims }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A board move's words once its piece and square are picked: what it claims ("claim ghost + sitting"). */
export function moveWords(body, labeller) {
  if (!isBoardMove(body)) return null;
  const claims = body.claims || [];
  return `${body.piece} ${body.from ? `${body.from}→` : "→ "}${body.to} · ${claims.length ? `claim ${claims.map((c) => labeller.value(c)).join(" + ")}` : "no claim"}`;
}

/** The command types that give up the match: offered as a Resign (or Concede) button that asks first. */
export const GIVING_UP = ["resign", "concede"];

/** A button that plays one listed command (`label` replaces its fields in words; giving up asks for a confirming second click, or Cancel). */
export function commandButton(body, labeller, onPlay, label = null) {
  const danger = GIVING_UP.includes(body.type);
  const fields = label || labeller.fields(body);
  const words = () => [el("strong", {}, typeWords(body.type)), fields ? ` · ${fields}` : ""];
  const button = el("button", {
    type: "button", class: `play-command${danger ? " danger" : ""}`, "data-testid": "legal-command",
    "data-type": body.type, "data-body": JSON.stringify(body), title: labeller.body(body),
    "data-give-up": danger ? body.type : null,
  }, words());
  const cancel = danger ? el("button", { type: "button", class: "play-cancel", "data-action": "cancel-give-up", hidden: true }, "Cancel") : null;
  // Back to the plain button: nothing was sent.
  const disarm = () => {
    button.dataset.armed = "no";
    button.replaceChildren(...words());
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

// ----- choice forms -------------------------------------------------------------------------------

// A short name for one choice of a type (what tells it from its siblings): fixed fields and fixed pair sides.
function variantLabel(choice, labeller) {
  const parts = Object.entries(choice.fixed || {}).map(([k, v]) => `${fieldWords(k)}: ${labeller.field(k, v)}`);
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
      fixed.length && !variant ? el("p", { class: "play-fixed" }, fixed.map(([k, v]) => `${fieldWords(k)}: ${labeller.field(k, v)}`).join(" · ")) : "",
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
    const distinct = [...new Map(commands.map((c) => [moveKey(c), c])).values()];
    if (distinct.length && distinct.every(isBoardMove)) {
      // Moves of a piece to a square are picked on the board (by click, tap or keyboard), each once.
      group.append(el("h4", {}, typeWords(type)), el("p", { class: "play-board-moves hint", "data-board-moves": String(distinct.length) },
        `Pick a piece on the board, then its square, then what you claim (${distinct.length} moves).`));
    } else if (commands.length) {
      const buttons = el("div", { class: "play-buttons" }, distinct.map((c) => commandButton(c, labeller, onPlay)));
      if (distinct.length > MAX_OPEN_COMMANDS) {
        group.append(el("details", { class: "play-many" },
          el("summary", {}, `${typeWords(type)} · ${distinct.length} moves`), buttons));
      } else {
        group.append(el("h4", {}, typeWords(type)), buttons);
      }
    }
    const byClicks = choices.length && choices.every(isAssignment);
    const batches = byClicks || choices.length > MAX_SEPARATE_CHOICES ? [choices] : choices.map((c) => [c]);
    for (const batch of batches) {
      const form = byClicks ? assignForm(batch, labeller, onPlay) : choiceForm(batch, labeller, onPlay);
      forms.push(form);
      group.append(form);
    }
    return group;
  });
  return { node: el("div", { class: "play-options" }, groups), forms };
}
