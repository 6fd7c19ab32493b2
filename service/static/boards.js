// Board renderers, one per ruleset, each drawing a view's `state` exactly as the API gave it:
// what the view leaves out (hidden cards, powers) is drawn face down, never guessed.
// gambit-tcg and gattai-conflict have their own files; the root element of every board carries
// `data-board="<ruleset>"`, and a finished view opens with its outcome instead of a turn.

import { gattaiBoard } from "./board-gattai.js";
import { cardBack, cards, facts, isFinished, outcomeBanner, seatChip, seatTag, slotName } from "./board-parts.js";
import { tcgBoard } from "./board-tcg.js";
import { el, scalar, tree } from "./dom.js";

const RENDERERS = {
  "gambit-board": gambitBoard,
  gambitz: gambitz,
  "dragons-gambit": dragonsGambit,
  "gambit-tcg": tcgBoard,
  "gattai-conflict": gattaiBoard,
};

/**
 * Draw `view` (a /view body) of a match of `ruleset` into `container`.
 * `context.catalogue` is the ruleset's public catalogue (GET /rulesets/{id}), for card names.
 */
export function renderBoard(container, ruleset, view, context = {}) {
  const render = RENDERERS[ruleset] || generic;
  let content;
  let used = RENDERERS[ruleset] ? ruleset : "generic";
  try {
    content = render(view.state || {}, view, context);
  } catch (err) {
    // A state this renderer does not understand (a newer ruleset version) still shows as a tree.
    console.error(err);
    content = generic(view.state || {}, view);
    used = "generic";
  }
  content.dataset.board = used;
  if (isFinished(view)) content.prepend(outcomeBanner(view));
  container.replaceChildren(content);
  container.dataset.ruleset = used;
}

// ----- generic ------------------------------------------------------------------------------

// Any ruleset without its own renderer: the state as a readable key/value tree.
function generic(state) {
  return el("div", { class: "generic-board" }, el("h2", {}, "State"), tree(state));
}

// ----- gambit-board -------------------------------------------------------------------------

const POWER_SHORT = {
  diagonal: "diagonal", ghost: "ghost", sidewinder: "sidewinder", bulldozer: "bulldozer",
  moat: "moat", sitting: "sitting", kamikaze: "kamikaze", detective: "detective",
};

// What is known of a piece's powers in this view: held powers, powers revealed so far, or all of a
// lost piece's powers (losing a piece reveals them to everyone, even when it held none).
function knownPowers(state, piece) {
  const entry = (state.pieces || {})[piece] || {};
  if (entry.powers) {
    const held = [entry.powers.movement, entry.powers.action].filter(Boolean);
    return { known: true, held: true, powers: held };
  }
  const revealed = new Set();
  let whole = false;
  for (const item of state.revealed || []) {
    if (item.piece !== piece) continue;
    for (const p of item.powers || []) revealed.add(p);
    if (item.reason === "lost") whole = true;
  }
  return { known: whole, held: false, powers: [...revealed] };
}

// A power's name, with a short form that phones show in a small square.
function powerName(power) {
  const name = POWER_SHORT[power] || power;
  return [el("span", { class: "long" }, name), el("span", { class: "short", "aria-hidden": "true" }, name.slice(0, 4))];
}

// A piece in words for a screen reader: "S4 (south): diagonal, moat".
function pieceWords(state, piece) {
  const entry = (state.pieces || {})[piece] || {};
  const { known, powers } = knownPowers(state, piece);
  const said = powers.length ? `${powers.join(", ")}${known ? "" : " revealed, the rest hidden"}` : known ? "no power" : "powers hidden";
  return `${piece} (${entry.seat || "?"}): ${said}`;
}

// One piece as a token: id, seat colour, known or revealed powers, "?" when hidden.
function pieceToken(state, piece, { small = false, spoken = true } = {}) {
  const entry = (state.pieces || {})[piece] || {};
  const seatIndex = entry.seat === "north" ? 1 : 0;
  const { known, held, powers } = knownPowers(state, piece);
  const token = el("div", {
    class: `piece seat-${seatIndex}${small ? " small" : ""}${known ? " known" : ""}`,
    "data-piece": piece, title: `${piece} (${entry.seat || "?"})${known ? "" : " — powers hidden"}`,
    "aria-hidden": spoken ? null : "true",
  }, el("span", { class: "piece-id" }, piece));
  if (!small) {
    const list = el("span", { class: "powers" });
    if (powers.length === 0) list.append(el("span", { class: known ? "power none" : "power hidden" }, known ? "no power" : "?"));
    for (const power of powers) {
      list.append(el("span", { class: `power ${held ? "held" : "revealed"}`, title: held ? "held" : "revealed" },
        powerName(power)));
    }
    token.append(list);
  }
  return token;
}

// The 6×6 board: north's home row (6) at the top, stacks drawn bottom to top.
function gambitBoard(state, view) {
  const finished = isFinished(view);
  const columns = "abcdef";
  const impassable = new Set(state.impassable || []);
  const forbidden = new Set(finished ? [] : ((state.turn || {}).forbidden_squares) || []);
  const lastClaim = (state.claims || []).at(-1);
  const grid = el("div", { class: "gb-grid", role: "grid", "aria-label": "6 by 6 board" });
  grid.append(el("div", { class: "gb-row", role: "row" }, el("div", { class: "gb-corner", role: "columnheader" }),
    [...columns].map((c) => el("div", { class: "gb-label", role: "columnheader" }, c))));
  for (let row = 6; row >= 1; row -= 1) {
    const line = el("div", { class: "gb-row", role: "row" }, el("div", { class: "gb-label", role: "rowheader" }, String(row)));
    for (let col = 0; col < 6; col += 1) {
      const square = `${columns[col]}${row}`;
      const stack = (state.board || {})[square] || [];
      const classes = ["gb-square", (col + row) % 2 === 0 ? "dark" : "light"];
      if (impassable.has(square)) classes.push("impassable");
      if (forbidden.has(square)) classes.push("forbidden");
      if (lastClaim && lastClaim.to === square) classes.push("last-to");
      if (lastClaim && lastClaim.from === square) classes.push("last-from");
      // What a screen reader says for the square; the drawn pieces repeat it and are hidden from it.
      const said = [impassable.has(square) ? "impassable" : "", forbidden.has(square) ? "forbidden this turn" : "",
        stack.length ? stack.slice().reverse().map((p) => pieceWords(state, p)).join(" on top of ") : "empty"].filter(Boolean).join(", ");
      const cell = el("div", { class: classes.join(" "), "data-square": square, role: "gridcell" },
        el("span", { class: "square-name" }, square), el("span", { class: "visually-hidden" }, `: ${said}`));
      if (stack.length > 0) {
        cell.append(pieceToken(state, stack[stack.length - 1], { spoken: false }));
        if (stack.length > 1) {
          const under = el("div", { class: "under", title: "stack, bottom to top", "aria-hidden": "true" },
            el("span", {}, `stack ${stack.length}: `));
          for (const piece of stack.slice(0, -1)) under.append(pieceToken(state, piece, { small: true }));
          cell.append(under);
        }
      }
      line.append(cell);
    }
    grid.append(line);
  }
  const seats = ["north", "south"];
  const sidePanels = seats.map((seat) => {
    const lost = (state.lost || {})[seat] || [];
    const dice = (state.dice || {})[seat];
    const detections = (state.detections || {})[seat];
    return el("div", { class: `gb-seat seat-${seat === "north" ? 1 : 0}` },
      el("h3", {}, seat, seatTag(view, seat, { acting: state.turn && state.turn.seat === seat, actingText: "to move" })),
      facts([
        ["captured from", `${lost.length} of 6`],
        ["far row", (state.far_row || {})[seat]],
        ["assignment", (state.assigned || {})[seat] ? `committed (v${(state.assignment_versions || {})[seat]})` : "not yet"],
        ["dice", dice === undefined ? undefined : scalar(JSON.stringify(dice))],
        ["detections", detections === undefined || detections.length === 0 ? undefined : tree(detections)],
      ]),
      el("div", { class: "lost" }, lost.length ? "Lost: " : "", lost.map((p) => pieceToken(state, p))));
  });
  const turn = finished ? undefined : state.turn ? `${state.turn.seat}, turn ${state.turn.number}` : "—";
  const step = finished ? undefined : state.step ? `${state.step.kind}${state.step.seat ? ` (${state.step.seat})` : ""}` : "—";
  const pending = finished ? undefined : state.pending
    ? `${state.pending.seat || "?"} claims ${(state.pending.claims || [state.pending.power]).filter(Boolean).join(", ") || "no power"}`
      + (state.pending.piece ? ` with ${state.pending.piece}` : "") : "none";
  const recent = (state.claims || []).slice(-6).reverse().map((c) => el("li", {},
    `v${c.version} ${c.seat}: ${c.kind} ${c.piece || ""}${c.from ? ` ${c.from}→${c.to}` : ""}`
    + ((c.claims || []).length ? ` claiming ${c.claims.join(", ")}` : "")));
  const rulings = (state.rulings || []).slice(-6).reverse().map((r) => el("li", { class: `verdict-${r.verdict}` },
    `v${r.version}: ${r.caller} called ${r.claimant}'s ${r.power} on ${r.piece} — claim ${r.verdict === "true" ? "TRUE" : "FALSE"}`
    + ((r.consequences || {}).piece_lost_by ? `, ${r.consequences.piece_lost_by} loses a piece` : "")));
  return el("div", { class: "gambit-board" },
    el("div", { class: "gb-main" }, grid,
      el("div", { class: "gb-seats" }, sidePanels)),
    el("div", { class: "gb-status" },
      facts([["phase", state.phase], ["turn", turn], ["awaiting", step], ["pending claim", pending],
             ["board", (state.config || {}).board], ["powers", (state.config || {}).power_mode],
             ["turns played", finished && state.turn ? state.turn.number : undefined]]),
      el("div", { class: "gb-logs" },
        el("div", {}, el("h4", {}, "Recent claims"), recent.length ? el("ol", {}, recent) : el("p", { class: "muted" }, "none")),
        el("div", {}, el("h4", {}, "Bluff rulings"), rulings.length ? el("ol", {}, rulings) : el("p", { class: "muted" }, "none")))));
}

// ----- gambitz --------------------------------------------------------------------------------

const RANK_ORDER = ["king", "queen", "bishop", "knight", "castle", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
const SUITS = ["red", "blue", "green", "yellow"];
// The court cards' letters on a small card, as the legend under the stacks spells out.
const COURT = { king: "K", queen: "Q", bishop: "B", knight: "N", castle: "R" };

// A gambitz card id ("7-red", "queen-blue") as a small coloured card.
function gzCard(card, extra = "") {
  const colour = SUITS.find((s) => card.endsWith(`-${s}`)) || "none";
  const rank = card.slice(0, card.length - colour.length - 1) || card;
  const face = COURT[rank] || rank;
  const name = `${rank} of ${colour}`;
  return el("span", { class: `gz-card ${colour} ${extra}`.trim(), title: name, role: "img", "aria-label": name, "data-card": card },
    el("span", { class: "rank", "aria-hidden": "true" }, face));
}

// Stacks by rank, scores, hand sizes and, when the view has them, the hands and deck.
function gambitz(state, view) {
  const finished = isFinished(view);
  const seats = state.seats || [];
  const stacks = state.stacks || {};
  const ranks = [...RANK_ORDER.filter((r) => r in stacks), ...Object.keys(stacks).filter((r) => !RANK_ORDER.includes(r))];
  const stackRow = el("div", { class: "gz-stacks" });
  for (const rank of ranks) {
    const pile = stacks[rank];
    const column = el("div", { class: `gz-stack${pile.locked ? " locked" : ""}`, "data-stack": rank },
      el("div", { class: "gz-rank" }, rank), el("div", { class: "gz-size" }, `${pile.size}`));
    const cards = el("div", { class: "gz-pile" });
    for (const card of pile.cards || []) cards.append(gzCard(card));
    if (pile.queen) cards.append(gzCard(pile.queen, "queen-top"));
    column.append(cards);
    if (pile.locked) column.append(el("div", { class: "lock", title: "locked by a queen" }, "locked"));
    stackRow.append(column);
  }
  const hands = state.hands || null;
  const players = el("div", { class: "gz-players" });
  for (const seat of seats) {
    let hand;
    if (hands && hands[seat]) hand = hands[seat].map((c) => gzCard(c));
    else if (view.viewer === seat && state.hand) hand = state.hand.map((c) => gzCard(c));
    else hand = Array.from({ length: (state.hand_sizes || {})[seat] || 0 }, () => cardBack());
    const shown = (state.shown_hands || []).filter((s) => s.seat === seat);
    players.append(el("div", { class: `gz-player${!finished && state.turn === seat ? " active-seat" : ""}`, "data-seat": seat },
      el("h3", {}, seatChip(seat, seats), seatTag(view, seat, { acting: state.turn === seat, actingText: "to play" }),
        (state.passed || []).includes(seat) ? el("span", { class: "muted" }, " · passed") : ""),
      facts([["points", (state.points || {})[seat]], ["hand", cards((state.hand_sizes || {})[seat])]]),
      el("div", { class: "gz-hand" }, hand),
      shown.length ? el("div", { class: "muted" }, "shown: ", shown.map((s) => (s.cards || []).map((c) => gzCard(c)))) : ""));
  }
  const deck = el("div", { class: "gz-deck" },
    el("h4", {}, `Deck · ${state.deck_size === undefined ? "?" : cards(state.deck_size)}`),
    state.deck ? el("div", { class: "gz-hand" }, state.deck.map((c) => gzCard(c))) : cardBack(String(state.deck_size ?? "")));
  return el("div", { class: "gambitz" },
    facts([["phase", state.phase], ["to play", finished ? undefined : state.turn], ["first seat", state.first_seat],
           ["redrew", state.redrew]]),
    el("h4", {}, "Stacks"), stackRow,
    el("p", { class: "gz-legend", "data-testid": "court-legend" }, "Court cards: ",
      Object.entries(COURT).map(([rank, letter]) => el("span", { class: "gz-key" }, el("strong", {}, letter), ` ${rank}`))),
    el("h4", {}, "Players"), players,
    deck,
    state.scoring ? el("details", { class: "scoring" }, el("summary", {}, "Scoring table"), tree(state.scoring)) : "");
}

// ----- dragons-gambit -------------------------------------------------------------------------

// A dragons-gambit card: face and value when known, a back otherwise; tokens as pips.
function dgCard(card) {
  const place = el("span", { class: "slot-name" }, slotName(card.slot));
  const known = card.face !== null && card.face !== undefined;
  const n = card.tokens || 0;
  const pips = el("span", { class: "tokens", title: `tokens: ${n} (they add to the face value)` },
    n === 0 ? "" : n > 0 && n <= 5 ? "●".repeat(n) : `${n > 0 ? "+" : "−"}${Math.abs(n)} tok`);
  if (!known) {
    return el("div", { class: "dg-card back", "data-slot": card.slot, title: `${slotName(card.slot)}: face down`,
      role: "img", "aria-label": `${slotName(card.slot)}: face down${n ? `, ${n} tokens` : ""}` },
    place, el("span", { class: "face", "aria-hidden": "true" }, "?"), pips);
  }
  return el("div", { class: "dg-card", "data-slot": card.slot, title: `${slotName(card.slot)}${card.card ? `: card ${card.card}` : ""}` },
    place, el("span", { class: "face" }, String(card.face)), pips,
    card.value !== undefined && card.value !== null && card.value !== card.face
      ? el("span", { class: "value" }, `= ${card.value}`) : "");
}

// Grids of every seat, the draw and discard piles, the drawn card, scores and the round.
function dragonsGambit(state, view) {
  const finished = isFinished(view);
  const seats = state.seats || [];
  const grids = el("div", { class: "dg-grids" });
  for (const seat of seats) {
    const tags = [];
    tags.push(seatTag(view, seat, { acting: state.current === seat, actingText: "to play" }));
    if (state.caller === seat) tags.push(el("span", { class: "caller" }, " · called Final Gambit"));
    grids.append(el("div", { class: `dg-seat${!finished && state.current === seat ? " active-seat" : ""}`, "data-seat": seat },
      el("h3", {}, seatChip(seat, seats), tags),
      el("div", { class: "dg-grid" }, ((state.grids || {})[seat] || []).map(dgCard)),
      facts([["score", (state.scores || {})[seat]], ["turns this round", (state.turns_taken || {})[seat]]])));
  }
  const discard = state.discard || [];
  const top = discard.at(-1);
  const drawn = state.drawn;
  const piles = el("div", { class: "dg-piles" },
    el("div", { class: "dg-pile" }, el("h4", {}, "Draw pile"),
      el("div", { class: "dg-card back big" }, el("span", { class: "face" }, String(state.draw_pile_count ?? "?"))),
      state.draw_pile ? el("details", {}, el("summary", {}, "order"),
        el("div", { class: "dg-row" }, state.draw_pile.map((c) => el("span", { class: "mini", title: c.card }, String(c.face))))) : ""),
    el("div", { class: "dg-pile" }, el("h4", {}, `Discard · ${discard.length}`),
      top ? el("div", { class: "dg-card big", title: top.card }, el("span", { class: "face" }, String(top.face)))
        : el("div", { class: "dg-card empty big" }, "empty"),
      discard.length > 1 ? el("div", { class: "dg-row" }, discard.slice(0, -1).reverse()
        .map((c) => el("span", { class: "mini", title: c.card }, String(c.face)))) : ""),
    drawn ? el("div", { class: "dg-pile" }, el("h4", {}, `Drawn by ${drawn.seat}`),
      drawn.face !== null && drawn.face !== undefined
        ? el("div", { class: "dg-card big" }, el("span", { class: "face" }, String(drawn.face)))
        : el("div", { class: "dg-card back big" }, el("span", { class: "face" }, "?"))) : "");
  const pending = state.pending_ability;
  const last = state.last_round;
  return el("div", { class: "dragons-gambit" },
    facts([["round", state.round], ["phase", state.phase], ["to play", finished ? undefined : state.current],
           ["Final Gambit", state.caller ? `called by ${state.caller}` : "not called"],
           ["final turns left", (state.final_turns_left || []).join(", ") || undefined],
           ["ability", pending && !finished ? `${pending.seat}: ${pending.ability} (${pending.face})` : undefined],
           ["target score", state.target_score], ["caller penalty", state.caller_penalty]]),
    grids, piles,
    last ? el("details", { class: "last-round" }, el("summary", {}, `Last round (${state.rounds_played} played)`), tree(last)) : "");
}
