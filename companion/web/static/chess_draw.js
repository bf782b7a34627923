// The Beyond Chess board as SVG (cell units): the squares (a cell without one is a rift), the
// pieces, the last turn's marks (piece move, shifted square or Geret), a half-made turn, the
// cells an alert is about, and check. Shared by the table's chess page and the hub's pages,
// which hand it the same view keys (board, last_turn, half, alert_cells, check, to_move, over).
export const CHESS_GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };

export function chessCellName(x, y) { return x >= 0 && x < 26 && y >= 0 ? String.fromCharCode(97 + x) + (y + 1) : `[${x},${y}]`; }

function chessEl(tag, attrs, text) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Draw ``state`` into ``svg`` (replacing what it held); ``coords: false`` leaves out the file
// letters and rank numbers (the hub's small boards).
export function drawChessBoard(svg, state, { coords = true, onCell = null, picked = [] } = {}) {
  const b = state.board;
  let [x0, y0, x1, y1] = b.bounds;
  x0 = Math.min(x0, 0) - 1; y0 = Math.min(y0, 0) - 1; x1 = Math.max(x1, 7) + 1; y1 = Math.max(y1, 7) + 1;
  const W = x1 - x0 + 1, H = y1 - y0 + 1;
  const sx = (x) => x - x0, sy = (y) => y1 - y;  // top-left corner of cell (x, y)
  svg.setAttribute("viewBox", `-0.6 0 ${W + 0.6} ${H + 0.6}`);
  svg.innerHTML = "";
  svg.appendChild(chessEl("rect", { x: -0.6, y: 0, width: W + 0.6, height: H + 0.6, class: "cloth" }));
  for (let x = Math.max(x0, 0); coords && x <= x1 && x < 26; x++) svg.appendChild(chessEl("text", { x: sx(x) + 0.5, y: H + 0.42, class: "coord" }, String.fromCharCode(97 + x)));
  for (let y = Math.max(y0, 0); coords && y <= y1; y++) svg.appendChild(chessEl("text", { x: -0.3, y: sy(y) + 0.62, class: "coord" }, String(y + 1)));
  const squares = chessEl("g", { class: "squares" });
  for (const [x, y] of b.squares) {
    squares.appendChild(chessEl("rect", { x: sx(x) + 0.03, y: sy(y) + 0.03, width: 0.94, height: 0.94, rx: 0.04, class: (x + y) % 2 ? "sq light" : "sq dark" }));
  }
  svg.appendChild(squares);
  // where the last turn moved: the piece's cells, and the square shifted (or Gereted)
  const mark = (t, cls) => {
    if (!t) return;
    for (const [x, y] of [t.from, t.to]) svg.appendChild(chessEl("rect", { x: sx(x) + 0.03, y: sy(y) + 0.03, width: 0.94, height: 0.94, rx: 0.04, class: cls }));
    const sh = t.geret ? [t.from, t.to] : t.shift;
    if (sh) {
      const [[ax, ay], [bx, by]] = sh;
      svg.appendChild(chessEl("rect", { x: sx(ax) + 0.08, y: sy(ay) + 0.08, width: 0.84, height: 0.84, class: "was-square" }));
      svg.appendChild(chessEl("line", { x1: sx(ax) + 0.5, y1: sy(ay) + 0.5, x2: sx(bx) + 0.5, y2: sy(by) + 0.5, class: "shift-arrow" }));
      svg.appendChild(chessEl("circle", { cx: sx(bx) + 0.5 - (bx - ax) * 0.18, cy: sy(by) + 0.5 + (by - ay) * 0.18, r: 0.09, class: "shift-head" }));
    }
  };
  mark(state.last_turn, "last");
  mark(state.half, "half");
  for (const [x, y] of state.alert_cells || []) svg.appendChild(chessEl("rect", { x: sx(x) + 0.06, y: sy(y) + 0.06, width: 0.88, height: 0.88, class: "alert-ring" }));
  for (const [x, y, letter] of b.pieces) {
    const white = letter === letter.toUpperCase();
    const lower = letter.toLowerCase();
    if (lower === "k" && state.check && (white ? 0 : 1) === state.to_move && !state.over) {
      svg.appendChild(chessEl("circle", { cx: sx(x) + 0.5, cy: sy(y) + 0.5, r: 0.46, class: "check" }));
    }
    const t = chessEl("text", { x: sx(x) + 0.5, y: sy(y) + 0.8, class: "piece " + (white ? "w" : "b") }, CHESS_GLYPH[lower]);
    t.appendChild(chessEl("title", {}, `${white ? "white" : "black"} ${({ k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" })[lower]} on ${chessCellName(x, y)}`));
    svg.appendChild(t);
  }
  // cells tapped so far (a turn being entered on the page), then a hit area on every cell
  picked.forEach(([x, y], i) => svg.appendChild(chessEl("rect", { x: sx(x) + 0.05, y: sy(y) + 0.05, width: 0.9, height: 0.9, class: i < 2 ? "picked" : "picked shift" })));
  if (onCell) {
    const hits = chessEl("g", { class: "hits" });
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) {
      const r = chessEl("rect", { x: sx(x), y: sy(y), width: 1, height: 1, class: "hit", "data-cell": chessCellName(x, y) });
      r.addEventListener("click", () => onCell(x, y));
      hits.appendChild(r);
    }
    svg.appendChild(hits);
  }
  svg.setAttribute("aria-label", `the board: ${b.squares.length} squares, ${b.pieces.length} pieces`);
}
