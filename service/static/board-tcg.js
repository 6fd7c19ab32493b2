// The gambit-tcg board: each seat's life, deck, hand, Set Zone, units with their items, energy,
// graveyard and exile; the shared field; combat, an open response window and a spell waiting to
// resolve. Names, costs and text come from the ruleset's catalogue; a card the view hides is a back.

import { cardBack, cardBacks, cards, facts, isFinished, seatChip, seatTag } from "./board-parts.js";
import { el, words } from "./dom.js";

const PHASES = ["main1", "combat", "main2", "draw", "end"];
const PHASE_NAMES = { main1: "Main 1", combat: "Combat", main2: "Main 2", draw: "Draw", end: "End" };

// The catalogue as {card id: definition} plus the format's numbers (empty when not loaded).
function cardIndex(catalogue) {
  const byId = new Map(((catalogue && catalogue.cards) || []).map((card) => [card.id, card]));
  return { byId, format: (catalogue && catalogue.format) || {} };
}

// "unit · guard, reveal" / "field (relic)" / "trap".
function typeLine(definition, keywords) {
  const kind = definition.type === "field" && definition.field_kind ? `field ${definition.field_kind}` : definition.type;
  const list = keywords || definition.keywords || [];
  return [kind || "card", list.length ? list.join(", ") : ""].filter(Boolean).join(" · ");
}

// A face-up card, as large as its zone allows: name, cost, type line, text, and `extra` beneath.
function cardFace(index, face, { classes = "", extra = [], keywords = null, stats = null } = {}) {
  const def = index.byId.get(face.id) || {};
  const colour = (def.color || "neutral").toLowerCase();
  return el("div", {
    class: `tcg-card color-${colour} type-${def.type || "unknown"} ${classes}`.trim(),
    "data-card": face.card, "data-id": face.id,
    title: `${def.name || face.id} (${face.id})${def.text ? ` — ${def.text}` : ""}`,
  },
  el("div", { class: "tcg-head" }, el("span", { class: "tcg-name" }, def.name || face.id),
    def.cost === undefined ? "" : el("span", { class: "tcg-cost", title: "cost" }, String(def.cost))),
  el("div", { class: "tcg-type" }, typeLine(def, keywords)),
  def.text ? el("div", { class: "tcg-text" }, def.text) : "",
  stats ? el("div", { class: "tcg-stats", title: "Might / Endurance" }, stats) : "",
  extra);
}

// A small chip for a card in a crowded zone (energy, graveyard, an item): its name, text on hover.
function cardChip(index, face, note = "", classes = "") {
  const def = index.byId.get(face.id) || {};
  return el("span", {
    class: `tcg-chip color-${(def.color || "neutral").toLowerCase()} ${classes}`.trim(),
    "data-card": face.card, "data-id": face.id,
    title: `${def.name || face.id} (${face.id}, ${def.type || "card"})${def.text ? ` — ${def.text}` : ""}`,
  }, def.name || face.id, note ? el("span", { class: "note" }, ` ${note}`) : "");
}

// The name of a card instance wherever the view shows it face up, else the instance id.
function instanceNames(state, index) {
  const names = new Map();
  const note = (face) => { if (face && face.id) names.set(face.card, (index.byId.get(face.id) || {}).name || face.id); };
  for (const player of Object.values(state.players || {})) {
    for (const unit of player.units || []) { note(unit); note(unit.item); }
    for (const zone of ["hand", "set", "energy", "graveyard", "exile"]) for (const face of player[zone] || []) note(face);
  }
  note(state.field);
  note(state.pending_spell);
  return (instance) => names.get(instance) || instance;
}

// One entry of a Set Zone: a back while hidden, the face (dimmed) for its owner (and for everyone
// once the match is over), the face once revealed.
function setEntry(index, entry, own) {
  const timing = `set turn ${entry.set_turn}, usable from turn ${entry.ready_turn}`;
  if (entry.hidden || !entry.id) {
    return el("div", { class: "tcg-set-back", "data-card": entry.card, title: `face down · ${timing} · commitment v${entry.commitment_version}` },
      cardBack("set"), el("span", { class: "note" }, `turn ${entry.set_turn}`));
  }
  const labels = [entry.face === "up" ? "revealed" : own ? "face down (yours)" : "face down"];
  if (entry.window) labels.push(`window: ${words(entry.window)}`);
  return cardFace(index, entry, {
    classes: entry.face === "up" ? "revealed" : "known-face-down",
    extra: el("div", { class: "tcg-badges", title: timing }, labels.map((label) => el("span", { class: "tcg-badge" }, label))),
  });
}

// A unit with its live Might/Endurance, damage, boosts, item and its part in the combat.
function unitCard(index, unit, combat, nameOf) {
  const badges = [];
  const role = combatRole(unit.card, combat, nameOf);
  if (role) badges.push(el("span", { class: `tcg-badge combat ${role.kind}` }, role.text));
  if (unit.damage) badges.push(el("span", { class: "tcg-badge damage" }, `${unit.damage} damage`));
  const boost = unit.boost || {};
  if (boost.might || boost.endurance) badges.push(el("span", { class: "tcg-badge" }, `boost +${boost.might}/+${boost.endurance}`));
  badges.push(el("span", { class: `tcg-badge ${unit.can_attack ? "ready" : "weak"}` }, unit.can_attack ? "can attack" : "can't attack"));
  return cardFace(index, unit, {
    classes: `unit${role ? ` in-combat ${role.kind}` : ""}`,
    keywords: unit.keywords,
    stats: `${unit.might}/${unit.endurance}${unit.damage ? ` (−${unit.damage})` : ""}`,
    extra: [
      unit.item ? el("div", { class: "tcg-item" }, "item: ", cardChip(index, unit.item)) : "",
      el("div", { class: "tcg-badges" }, badges),
    ],
  });
}

// Whether a unit attacks, blocks or is muted in the open combat.
function combatRole(instance, combat, nameOf) {
  if (!combat) return null;
  const muted = (combat.muted || []).includes(instance) ? ", deals no damage" : "";
  if ((combat.attackers || []).includes(instance)) return { kind: "attacking", text: `attacking${muted}` };
  const blocked = (combat.blocks || {})[instance];
  if (blocked) return { kind: "blocking", text: `blocking ${nameOf(blocked)}${muted}` };
  return null;
}

// A titled zone: "Units 2/5" and its cards (or a muted "empty").
function zone(name, title, children, modifier = "") {
  const list = [children].flat(Infinity).filter(Boolean);
  return el("section", { class: `tcg-zone ${modifier}`.trim(), "data-zone": name },
    el("h4", {}, title),
    el("div", { class: "tcg-row" }, list.length ? list : el("span", { class: "muted" }, "empty")));
}

// One seat's side of the table.
function playerSide(state, view, index, seat, nameOf) {
  const player = state.players[seat];
  const format = index.format;
  const cap = (n) => (n ? `/${n}` : "");
  const hand = player.hand
    ? player.hand.map((face) => cardFace(index, face, { classes: "in-hand" }))
    : cardBacks(player.hand_size, 10);
  const deck = el("div", { class: "tcg-deck", title: "cards left to draw" }, cardBack(String(player.deck_size ?? "?")),
    el("span", { class: "note" }, `deck · ${cards(player.deck_size)}`));
  const active = !isFinished(view) && (view.to_act || []).includes(seat);
  return el("div", { class: `tcg-side${active ? " active-seat" : ""}`, "data-seat": seat },
    el("div", { class: "tcg-side-head" },
      el("h3", {}, seatChip(seat, state.seats || Object.keys(state.players)), seatTag(view, seat, { acting: active }),
        state.active === seat && !isFinished(view) ? el("span", { class: "muted" }, " · their turn") : ""),
      el("span", { class: "tcg-life", title: `life (started at ${format.life ?? 20})`, "data-testid": `life-${seat}` },
        "♥ ", String(player.life)),
      deck,
      player.deck_name ? el("span", { class: "muted" }, `deck “${player.deck_name}”`) : ""),
    zone("hand", `Hand · ${cards(player.hand_size)}`, hand, "hand"),
    zone("set", `Set ${player.set_size ?? (player.set || []).length}${cap(format.set_zone)}`,
      (player.set || []).map((entry) => setEntry(index, entry, view.viewer === seat))),
    zone("units", `Units ${(player.units || []).length}${cap(format.unit_zone)}`,
      (player.units || []).map((unit) => unitCard(index, unit, state.combat, nameOf))),
    el("div", { class: "tcg-minor" },
      zone("energy", `Energy ${(player.energy || []).length}${cap(format.max_hand)}${player.energized_this_turn ? " · energized this turn" : ""}`,
        (player.energy || []).map((e) => cardChip(index, e, `${e.ready ? "ready" : "exhausted"}${e.value > 1 ? ` ×${e.value}` : ""}`,
          e.ready ? "ready" : "exhausted"))),
      zone("graveyard", `Graveyard · ${cards((player.graveyard || []).length)}`,
        (player.graveyard || []).map((face) => cardChip(index, face))),
      (player.exile || []).length ? zone("exile", `Exile · ${cards(player.exile.length)}`,
        player.exile.map((face) => cardChip(index, face))) : ""),
    player.deck ? el("details", { class: "tcg-order" }, el("summary", {}, "Deck order (top first)"),
      el("div", { class: "tcg-row" }, player.deck.map((face) => cardChip(index, face)))) : "");
}

// The middle of the table: the phase track, the field, combat, a response window, a spell waiting.
function centre(state, view, index, nameOf) {
  const finished = isFinished(view);
  const track = el("ol", { class: "tcg-phases", "aria-label": "phases of the turn" },
    PHASES.map((phase) => el("li", { class: !finished && state.phase === phase ? "current" : "" }, PHASE_NAMES[phase])));
  const field = state.field
    ? cardFace(index, state.field, { classes: "field", extra: el("div", { class: "tcg-badges" },
      el("span", { class: "tcg-badge" }, `${state.field.owner}'s field ${state.field.kind || ""}`.trim())) })
    : el("span", { class: "muted" }, "no field card");
  // The view keeps a combat with no attackers until the turn ends; it is news only while it is fought.
  const combat = !finished && state.combat && (state.combat.attackers.length || state.phase === "combat") ? state.combat : null;
  const combatBox = combat ? el("div", { class: "tcg-combat", "data-zone": "combat" },
    el("h4", {}, `Combat: ${combat.seat} attacks ${combat.target}`),
    (combat.attackers || []).length ? "" : el("p", { class: "muted" }, "no attackers"),
    el("ul", {}, (combat.attackers || []).map((attacker) => {
      const blocker = Object.keys(combat.blocks || {}).find((b) => combat.blocks[b] === attacker);
      return el("li", {}, nameOf(attacker), blocker ? ` ⟷ blocked by ${nameOf(blocker)}` : " → no blocker",
        (combat.muted || []).includes(attacker) ? " (deals no damage)" : "");
    }))) : "";
  const window = state.window ? el("div", { class: "tcg-window", "data-zone": "window" },
    el("strong", {}, `Response window: ${words(state.window.name)}`),
    ` · may respond: ${(state.window.responders || []).join(", ") || "nobody"}`) : "";
  const pending = state.pending_spell ? el("div", { class: "tcg-pending", "data-zone": "pending-spell" },
    el("h4", {}, `${state.pending_spell.seat} activates a spell`), cardFace(index, state.pending_spell)) : "";
  return el("div", { class: "tcg-centre" },
    el("div", { class: "tcg-status" }, track,
      facts([["turn", state.turn || "—"], ["active", finished ? undefined : state.active || "—"],
             ["step", finished || !state.step ? undefined : words(state.step)],
             ["to act", finished ? undefined : (view.to_act || []).join(", ") || "—"]])),
    el("section", { class: "tcg-zone field-zone", "data-zone": "field" }, el("h4", {}, "Field"), field),
    combatBox, window, pending);
}

/** The gambit-tcg board for `view` (its `state`); `context.catalogue` names the cards. */
export function tcgBoard(state, view, context = {}) {
  const index = cardIndex(context.catalogue);
  const seats = Object.keys(state.players || {});
  // As at a table: the viewer's own seat at the bottom; a spectator has p1 at the bottom.
  const bottom = seats.includes(view.viewer) ? view.viewer : seats[0];
  const order = [...seats.filter((s) => s !== bottom), bottom].filter(Boolean);
  const nameOf = instanceNames(state, index);
  const [top, ...rest] = order;
  return el("div", { class: "tcg-board" },
    top ? playerSide(state, view, index, top, nameOf) : "",
    centre(state, view, index, nameOf),
    rest.map((seat) => playerSide(state, view, index, seat, nameOf)),
    index.byId.size ? "" : el("p", { class: "muted" }, "Card names could not be loaded: showing card ids."));
}
