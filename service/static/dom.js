// Small DOM helpers: every text goes in through textContent, never as HTML.

// Create an element with attributes and children (strings become text nodes).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

// Append children (arrays are flattened; null/undefined/false are skipped).
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A readable text for any JSON scalar.
export function scalar(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

// "1 card", "2 cards", "0 cards" (an irregular plural is given as `many`).
export function plural(count, one, many = `${one}s`) {
  const n = Number(count) || 0;
  return `${n} ${n === 1 ? one : many}`;
}

// A label for a rule's id ("no_card_can_be_played" -> "no card can be played").
export function words(id) {
  return String(id ?? "").replaceAll("_", " ");
}

/** A JSON value as a nested key/value tree (used for unknown rulesets and event parts). */
export function tree(value, depth = 0) {
  if (value === null || typeof value !== "object") return el("span", { class: `scalar ${typeof value}` }, scalar(value));
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (entries.length === 0) return el("span", { class: "scalar empty" }, Array.isArray(value) ? "[ ]" : "{ }");
  if (Array.isArray(value) && entries.every(([, v]) => v === null || typeof v !== "object")) {
    return el("span", { class: "scalar list" }, value.map(scalar).join(", "));
  }
  const list = el("dl", { class: "tree" });
  for (const [key, child] of entries) {
    const nested = child !== null && typeof child === "object" && Object.keys(child).length > 0
      && !(Array.isArray(child) && child.every((v) => v === null || typeof v !== "object"));
    if (nested) {
      const details = el("details", { open: depth < 1 ? true : null },
        el("summary", {}, key, el("span", { class: "count" }, Array.isArray(child) ? ` [${child.length}]` : "")),
        tree(child, depth + 1));
      list.append(el("dt", { class: "nested" }), el("dd", { class: "nested" }, details));
    } else {
      list.append(el("dt", {}, key), el("dd", {}, tree(child, depth + 1)));
    }
  }
  return list;
}

// A short hex (first 10 digits) with the full value as a tooltip.
export function shortHex(hex) {
  if (!hex) return el("span", {}, "—");
  return el("code", { class: "hex", title: hex }, `${hex.slice(0, 10)}…`);
}
