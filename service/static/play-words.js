// The words that label the seat's moves: command types and field names in plain words, and names
// for the ids a command carries (card names from the ruleset's catalogue, a seat's card instances).

import { slotName } from "./board-parts.js";

const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };
// Fields that name a place in a dragons-gambit grid (the cards carry no slot numbers).
const SLOT_FIELD = /(^|_)slot$/;

// ----- words ----------------------------------------------------------------------------------

/** A command type or field name in plain words: "call_bluff" → "Call bluff". */
export function typeWords(type) {
  const text = String(type).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A field name in plain words. */
export function fieldWords(name) {
  return String(name).replaceAll("_", " ");
}

/** Names for the ids a command may carry: catalogue cards, and a seat's card instances seen in its view. */
export class Labeller {
  // `catalogue` is GET /rulesets/{id}'s catalogue; `state` the seat's view state (may be null);
  // `ruleset` the match's ruleset id (for words only one game uses).
  constructor(catalogue, state, ruleset = null) {
    this.catalogue = catalogue || {};
    this.ruleset = ruleset;
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

  /** One field's value in words: a dragons-gambit slot by its place in the grid ("near left"). */
  field(name, value) {
    if (this.ruleset === "dragons-gambit" && SLOT_FIELD.test(name) && Number.isInteger(value)) return slotName(value);
    return this.any(value);
  }

  /** A body's fields in words ("card: Lantern Acolyte (p1-03) · window: attack declared"). */
  fields(body) {
    return Object.entries(body).filter(([k]) => k !== "type").map(([k, v]) => `${fieldWords(k)}: ${this.field(k, v)}`).join(" · ");
  }

  /** The catalogue's name for a group holding every one of `values` ("movement" powers), or null. */
  groupName(values) {
    for (const group of Object.values(this.catalogue)) {
      if (group === null || typeof group !== "object" || Array.isArray(group)) continue;
      for (const [name, members] of Object.entries(group)) {
        if (Array.isArray(members) && values.length && values.every((v) => members.includes(v))) return name;
      }
    }
    return null;
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

