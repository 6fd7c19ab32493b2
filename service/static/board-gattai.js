// The gattai-conflict board: the Harmony gauge, the Team's gauges, Threats, hands, both decks with
// their Trash and Omens, the cards on the table, and the conflict itself — a Gambit (Threshold
// against the pilot's card) or a Throwdown (stages, Piles, Strike, scores, Payloads). A sealed
// Threshold or Initiative card is a back until its reveal.

import { cardBack, cardBacks, cards, facts, isFinished, seatChip, seatTag } from "./board-parts.js";
import { el, plural, words } from "./dom.js";

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAME = { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" };
const HARMONY = ["Red", "Orange", "Yellow", "Green", "Blue", "Indigo", "Violet"];
const STAGES = ["Confrontation", "Struggle", "Final Attack", "Rumble I", "Rumble II", "Rumble III", "Rumble IV"];
const STATS = ["steel", "flesh", "synch", "solo"];

// A card id ("P.10H", "C.AS", "P.JK1") as a small playing card; `note` goes under it.
function playingCard(card, note = "") {
  const deck = card.startsWith("C.") ? "coach" : "pilot";
  const body = card.slice(2);
  const noteNode = note ? el("span", { class: "note" }, note) : "";
  if (body.startsWith("JK")) {
    return el("span", { class: `gt-card joker ${deck}`, "data-card": card, title: `a Joker of the ${deck} deck` },
      el("span", { class: "rank" }, "★"), el("span", { class: "suit" }, "Joker"), noteNode);
  }
  const suit = body.slice(-1);
  const rank = body.slice(0, -1);
  return el("span", { class: `gt-card ${deck} suit-${suit}`, "data-card": card,
                      title: `${rank} of ${SUIT_NAME[suit] || suit} (${deck} deck)` },
    el("span", { class: "rank" }, rank), el("span", { class: "suit" }, SUIT_SYMBOL[suit] || suit), noteNode);
}

// A card the view may hide: its face when given, else a back labelled `label`.
function cardOrBack(card, label, note = "") {
  if (card) return playingCard(card, note);
  return el("span", { class: "gt-sealed" }, cardBack(label, "sealed: hidden until revealed"),
    note ? el("span", { class: "note" }, note) : "");
}

// "+Chargeup:p1(2) by coach" for a trigger waiting or carried in a Payload.
function triggerText(trigger) {
  const name = words(trigger.trigger);
  const amount = trigger.full ? "(Full)" : trigger.amount > 1 ? `(${trigger.amount})` : "";
  return `+${name.charAt(0).toUpperCase()}${name.slice(1)}${trigger.target ? `:${trigger.target}` : ""}${amount}`
    + `${trigger.by ? ` by ${trigger.by}` : ""}${trigger.immediate ? " (immediate)" : ""}`;
}

// `filled` of `max` as pips: ●●○.
function pips(filled, max, on = "●", off = "○") {
  const n = Math.max(0, Number(filled) || 0);
  const m = Math.max(n, Number(max) || 0);
  return el("span", { class: "pips", title: `${n} of ${m}` }, on.repeat(n) + off.repeat(m - n));
}

// The Harmony gauge: seven colours, the current level marked.
function harmonyGauge(harmony) {
  const level = (harmony && harmony.level) || 0;
  return el("div", { class: "gt-harmony", "data-zone": "harmony", title: `Harmony ${level} (${(harmony || {}).name || "?"})` },
    el("span", { class: "label" }, "Harmony"),
    el("ol", {}, HARMONY.map((name, i) => el("li", {
      class: `h-${name.toLowerCase()}${i + 1 === level ? " current" : ""}`, title: `${i + 1} ${name}` }, String(i + 1)))),
    el("strong", {}, `${level} ${(harmony || {}).name || ""}`));
}

// Each pilot's stats, charges and buffers.
function teamPanel(state) {
  return el("section", { class: "gt-zone", "data-zone": "team" }, el("h4", {}, "Team"),
    el("div", { class: "gt-row" }, Object.entries(state.team || {}).map(([pilot, sheet]) => el("div", {
      class: "gt-pilot", "data-seat": pilot },
      el("h5", {}, seatChip(pilot, state.seats)),
      facts([...STATS.map((stat) => [stat, sheet[stat]]),
             ["charges", pips(sheet.charges, sheet.charges_max)], ["buffers", pips(sheet.buffers, sheet.buffers_max, "◆", "◇")]])))));
}

// Every seat's hand: faces where this viewer may see them, backs otherwise.
function handsPanel(state, view) {
  return el("section", { class: "gt-zone", "data-zone": "hands" }, el("h4", {}, "Hands"),
    (state.seats || []).map((seat) => {
      const hand = (state.hands || {})[seat] || { count: 0, cards: null };
      const acting = (view.to_act || []).includes(seat);
      return el("div", { class: `gt-hand${acting && !isFinished(view) ? " active-seat" : ""}`, "data-seat": seat },
        el("div", { class: "gt-hand-head" }, seatChip(seat, state.seats), seatTag(view, seat, { acting }),
          el("span", { class: "muted" }, ` · ${cards(hand.count)} (max ${(state.max_hands || {})[seat] ?? "?"})`),
          (state.discards_due || {})[seat] ? el("span", { class: "to-move" }, ` · discards ${state.discards_due[seat]}`) : ""),
        el("div", { class: "gt-row" }, hand.cards ? hand.cards.map((card) => playingCard(card)) : cardBacks(hand.count, 8)));
    }));
}

// Both decks: the draw pile (a back with its count), the Trash (face up, top last) and the Omens.
function decksPanel(state) {
  return el("section", { class: "gt-zone gt-decks", "data-zone": "decks" }, el("h4", {}, "Decks"),
    Object.entries(state.decks || {}).map(([name, deck]) => el("div", { class: "gt-deck", "data-deck": name },
      el("div", { class: "gt-deck-head" }, cardBack(String(deck.count ?? "?"), `${name} deck: ${cards(deck.count)} to draw`),
        el("strong", {}, `${name === "coach" ? "Coach" : "Pilot"} Deck`), el("span", { class: "muted" }, ` · ${cards(deck.count)}`)),
      el("div", { class: "gt-sub", "data-zone": `trash-${name}` }, el("span", { class: "label" }, `Trash · ${(deck.trash || []).length}`),
        el("div", { class: "gt-row" }, (deck.trash || []).length
          ? deck.trash.map((card) => playingCard(card)) : el("span", { class: "muted" }, "empty"))),
      el("div", { class: "gt-sub", "data-zone": `omens-${name}` }, el("span", { class: "label" }, "Omens"),
        el("div", { class: "gt-row" }, (deck.omens || []).length
          ? deck.omens.map((omen) => playingCard(omen.card, omen.spent ? "spent" : "active"))
          : el("span", { class: "muted" }, "none"))),
      deck.order ? el("details", {}, el("summary", {}, "Order (top first)"),
        el("div", { class: "gt-row" }, deck.order.map((card) => playingCard(card)))) : "")));
}

// The Threats and the cards invested on each (face down unless this viewer is the Coach).
function threatsPanel(state) {
  const stacks = state.threat_stacks || {};
  return el("section", { class: "gt-zone", "data-zone": "threats" }, el("h4", {}, "Threats"),
    el("div", { class: "gt-row" }, Object.entries(state.threats || {}).map(([name, rating]) => {
      const stack = stacks[name] || { count: 0, cards: null };
      return el("div", { class: "gt-threat" }, el("strong", {}, name), ` rating ${rating}`,
        el("div", { class: "gt-row" }, stack.cards ? stack.cards.map((card) => playingCard(card)) : cardBacks(stack.count, 6)));
    })));
}

// The cards on the table (the Gambit's two cards, sealed Initiative cards): backs until revealed.
function tablePanel(state) {
  const table = state.table || [];
  if (!table.length) return "";
  return el("section", { class: "gt-zone", "data-zone": "table" }, el("h4", {}, "On the table"),
    el("div", { class: "gt-row" }, table.map((entry) => el("div", { class: "gt-slot", "data-seat": entry.seat },
      cardOrBack(entry.card, words(entry.role)), el("span", { class: "note" },
        `${entry.seat} · ${words(entry.role)}${entry.face_up ? "" : entry.card ? " · face down (yours)" : " · sealed"}`)))));
}

// Every sealed play: who sealed what kind, from where, and when it was revealed.
function sealedPanel(state) {
  const sealed = state.sealed || [];
  if (!sealed.length) return "";
  return el("section", { class: "gt-zone", "data-zone": "sealed" }, el("h4", {}, "Sealed plays"),
    el("ul", { class: "gt-list" }, sealed.map((entry) => el("li", {},
      `v${entry.version} ${entry.seat}: ${words(entry.kind)} from ${entry.source} — `,
      entry.reveal_version ? `revealed at v${entry.reveal_version}: ` : "sealed ",
      cardOrBack(entry.card, "?")))));
}

// The Gambit: the Threshold (a back until revealed) against the pilot's card, then the outcome.
function gambitPanel(state) {
  const g = state.gambit;
  const thresholdOnTable = (state.table || []).find((e) => e.role === "threshold");
  const threshold = g.threshold || (thresholdOnTable && thresholdOnTable.card);
  return el("section", { class: "gt-zone gt-conflict", "data-zone": "gambit" },
    el("h4", {}, `Gambit · ${g.pilot} faces it${g.specialty ? " (specialty)" : ""}`),
    el("div", { class: "gt-row" },
      el("div", { class: "gt-slot" }, g.threshold_version ? cardOrBack(threshold, "Threshold")
        : el("span", { class: "muted" }, "not played yet"), el("span", { class: "note" },
        `Threshold${g.threshold_version ? ` · sealed at v${g.threshold_version}` : ""}${g.threshold ? " · revealed" : ""}`)),
      el("span", { class: "gt-vs" }, "vs"),
      el("div", { class: "gt-slot" }, g.pilot_card ? playingCard(g.pilot_card) : el("span", { class: "muted" }, "not played yet"),
        el("span", { class: "note" }, `${g.pilot}'s card${g.pilot_source ? ` · from ${g.pilot_source}` : ""}`))),
    facts([["pilot higher", g.higher === null || g.higher === undefined ? undefined : g.higher],
           ["outcome", g.outcome ? words(g.outcome) : undefined], ["boon", g.boon ? `+${g.boon}` : undefined],
           ["complication", g.complication ? `+${g.complication}` : undefined]]));
}

// The Throwdown: the stage track, scores, Strikes, every stage's Pile and both Payloads.
function throwdownPanel(state, view) {
  const td = state.throwdown;
  const sides = ["pilots", "coach"];
  const strikes = td.strikes || {};
  const next = td.escalation_strikes || {};
  return el("section", { class: "gt-zone gt-conflict", "data-zone": "throwdown" },
    el("h4", {}, `Throwdown · stage ${td.stage}${td.stage_name ? ` (${td.stage_name})` : ""}`),
    el("ol", { class: "gt-stages", "aria-label": "stages" }, STAGES.map((name, i) => el("li", {
      class: i + 1 === td.stage ? "current" : i + 1 < td.stage ? "past" : "" }, name))),
    el("table", { class: "gt-sides" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "score"), el("th", {}, "Strike now"), el("th", {}, "next stage"),
        el("th", {}, "Initiative"))),
      el("tbody", {}, sides.map((side) => el("tr", { "data-side": side, class: !isFinished(view) && td.turn === side ? "turn" : "" },
        el("th", {}, side, !isFinished(view) && td.turn === side ? el("span", { class: "to-move" }, " · to drive") : ""),
        el("td", { "data-testid": `score-${side}` }, String((td.scores || {})[side] ?? 0)),
        el("td", {}, strikes[side] ?? "—"), el("td", {}, next[side] ?? "—"),
        el("td", {}, (td.initiative || {})[side] ? "sealed" : "—"))))),
    facts([["commander", td.commander], ["started by", td.started_by],
           ["Strike base", `pilots ${(td.strike_base || {}).pilots ?? "?"} · coach ${(td.strike_base || {}).coach ?? "?"}`],
           ["Assists this turn", td.bonus ? `+${td.bonus}${(td.assisted || []).length ? ` (${td.assisted.join(", ")})` : ""}` : undefined],
           ["fights for her Team", td.for_team === null || td.for_team === undefined ? undefined : td.for_team],
           ["to give", (td.to_give || []).length ? td.to_give.join(", ") : undefined],
           ["conceded by", td.conceded_by || undefined], ["winner", td.winner || undefined],
           ["called off", td.called_off ? true : undefined]]),
    el("div", { class: "gt-piles", "data-zone": "piles" }, (td.piles || []).length ? td.piles.map((pile, i) => el("div", {
      class: `gt-pile${i === td.piles.length - 1 ? " current" : ""}`, "data-stage": String(pile.stage) },
      el("span", { class: "label" }, `Pile · stage ${pile.stage} ${STAGES[pile.stage - 1] || ""}`,
        pile.escalation
          ? el("span", { class: "muted" }, ` · ${pile.escalation.scorer} scored ${plural(pile.escalation.points, "point")}`) : ""),
      el("div", { class: "gt-row" }, pile.cards.map((entry) => playingCard(entry.card, `${entry.side} · ${entry.how}`)))))
      : el("span", { class: "muted" }, "no Pile yet")),
    el("div", { class: "gt-payloads", "data-zone": "payloads" }, sides.map((side) => el("div", {},
      el("span", { class: "label" }, `Payload of the ${side}`),
      ((td.payloads || {})[side] || []).length
        ? el("ul", { class: "gt-list" }, td.payloads[side].map((t) => el("li", {}, triggerText(t))))
        : el("span", { class: "muted" }, " empty")))));
}

/** The gattai-conflict board for `view` (its `state`). */
export function gattaiBoard(state, view) {
  const finished = isFinished(view);
  const pending = state.pending;
  return el("div", { class: "gattai-board" },
    el("div", { class: "gt-top" }, harmonyGauge(state.harmony),
      facts([["mode", state.mode], ["phase", finished ? undefined : words(state.phase)],
             ["to act", finished ? undefined : (view.to_act || []).join(", ") || "—"],
             ["may act", finished || !(view.may_act || []).length ? undefined : view.may_act.join(", ")],
             ["crisis tier", state.crisis_tier]])),
    !finished && pending ? el("p", { class: "gt-pending", "data-zone": "pending" },
      `Waiting: ${pending.seat} resolves ${triggerText(pending.trigger)}`) : "",
    (state.queue || []).length > 1 ? el("details", { class: "gt-queue" }, el("summary", {}, `Triggers queued · ${state.queue.length}`),
      el("ul", { class: "gt-list" }, state.queue.map((t) => el("li", {}, triggerText(t))))) : "",
    state.gambit ? gambitPanel(state) : "",
    state.throwdown ? throwdownPanel(state, view) : "",
    tablePanel(state),
    el("div", { class: "gt-grid" }, teamPanel(state), threatsPanel(state)),
    handsPanel(state, view),
    decksPanel(state),
    sealedPanel(state));
}
