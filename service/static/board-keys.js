// The board by keyboard: the gambit-board squares are one tab stop (a roving tabindex: arrow keys
// move between squares, Home/End to the row's ends), and every piece or card a seat may pick now is
// a button of its own. Enter or Space on a square picks its top piece, else the square itself —
// exactly what a click there does. Focus survives the board being drawn again after each record.

const KEYS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

// The squares as rows of cells, top row first (each row is an element with role=row).
function squareRows(board) {
  return [...board.querySelectorAll("[role=row]")]
    .map((row) => [...row.querySelectorAll(":scope > [data-square]")])
    .filter((cells) => cells.length);
}

// What identifies a focusable element across redraws (its square, piece or card), or null.
function keyOf(node) {
  if (!node || !node.dataset) return null;
  for (const kind of ["square", "piece", "card"]) if (node.dataset[kind] !== undefined) return [kind, node.dataset[kind]];
  return null;
}

/** Keyboard use of one board element (the #board section, whose content is redrawn). */
export class BoardKeys {
  // `board` is the container the renderers draw into.
  constructor(board) {
    this.board = board;
    this.current = null;   // [kind, value] of the square the roving tab stop rests on
    this.focused = null;   // [kind, value] of the element that had focus, while focus is in the board
    board.addEventListener("keydown", (event) => this.onKey(event));
    board.addEventListener("focusin", (event) => {
      this.focused = keyOf(event.target);
      if (event.target.dataset && event.target.dataset.square !== undefined) this.current = ["square", event.target.dataset.square];
    });
    board.addEventListener("focusout", (event) => {
      // Focus that left for another control is gone; focus lost with its redrawn element comes back.
      if (event.relatedTarget && !board.contains(event.relatedTarget)) this.focused = null;
      else if (!event.relatedTarget && event.target.isConnected) this.focused = null;
    });
  }

  /** Give the drawn board its tab stops: one square, and each element in `pickable` (pieces, cards). */
  update(pickable) {
    const squares = [...this.board.querySelectorAll("[data-square]")];
    const stop = (this.current && squares.find((s) => s.dataset.square === this.current[1])) || squares[0];
    for (const square of squares) square.tabIndex = square === stop ? 0 : -1;
    for (const node of this.board.querySelectorAll("[data-piece],[data-card]")) {
      const inSquare = node.closest("[data-square]");
      if (!inSquare && pickable.has(node)) {
        node.tabIndex = 0;
        node.setAttribute("role", "button");
      } else if (node.hasAttribute("tabindex")) {
        node.removeAttribute("tabindex");
        if (node.getAttribute("role") === "button") node.setAttribute("role", node.dataset.card !== undefined ? "img" : "none");
      }
    }
    this.restore();
  }

  // After a redraw, put focus back on the element that held it (same square, piece or card).
  restore() {
    if (!this.focused || this.board.contains(document.activeElement)) return;
    if (document.activeElement && document.activeElement !== document.body) return;
    const [kind, value] = this.focused;
    const node = [...this.board.querySelectorAll(`[data-${kind}]`)].find((n) => n.dataset[kind] === value && n.tabIndex >= 0);
    if (node) node.focus({ preventScroll: true });
  }

  // Arrow keys walk the squares; Enter and Space act like a click.
  onKey(event) {
    const target = event.target;
    if (!(target instanceof HTMLElement) || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Enter" || event.key === " ") {
      if (target.dataset.square === undefined && target.getAttribute("role") !== "button") return;
      event.preventDefault();
      event.stopPropagation();   // the timeline's Space (play/pause) is not meant here
      const top = target.dataset.square !== undefined ? target.querySelector(":scope > [data-piece]") : null;
      (top || target).click();
      return;
    }
    if (target.dataset.square === undefined) return;
    const rows = squareRows(this.board);
    const r = rows.findIndex((cells) => cells.includes(target));
    if (r < 0) return;
    const c = rows[r].indexOf(target);
    let next = null;
    if (KEYS[event.key]) {
      const [dr, dc] = KEYS[event.key];
      next = (rows[r + dr] || [])[c + dc] || null;
    } else if (event.key === "Home") next = rows[r][0];
    else if (event.key === "End") next = rows[r].at(-1);
    if (!next) return;
    event.preventDefault();
    event.stopPropagation();   // the timeline steps versions on bare arrow keys elsewhere on the page
    target.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }
}
