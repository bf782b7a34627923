// Draws any board from its topology: grids, stacked layers side by side, maps from their xy.
const SVGNS = "http://www.w3.org/2000/svg";
export const COLOURS = ["#111", "#f4f4f0", "#d33", "#2a2", "#eb0", "#1bc", "#c3c", "#f80"];
export const LETTERS = "BWRGYCMO";

// Stone colours named by the players' names (GoBeyond players called Red, Green and Blue play
// those colours); other names take the usual order, skipping colours already named.
const NAMED = {
  black: "#111", white: "#f4f4f0", red: "#d33", green: "#2a2", blue: "#37d", yellow: "#eb0",
  cyan: "#1bc", magenta: "#c3c", orange: "#f80", purple: "#839", pink: "#f7a", brown: "#853",
  grey: "#888", gray: "#888",
};
export function playerColours(names) {
  const used = new Set();
  const named = names.map((n) => {
    const c = NAMED[String(n || "").trim().toLowerCase()];
    if (!c || used.has(c)) return null;
    used.add(c);
    return c;
  });
  let k = 0;
  return named.map((c) => {
    if (c) return c;
    while (k < COLOURS.length - 1 && used.has(COLOURS[k])) k++;
    used.add(COLOURS[k]);
    return COLOURS[k];
  });
}
// The names of a view's players (the table's {name} objects or the archive's strings).
export function playerNames(players) { return (players || []).map((p) => (typeof p === "string" ? p : p && p.name) || ""); }
function light(colour) {
  const h = colour.replace("#", ""), f = h.length === 3 ? 1 : 2;
  const v = [0, 1, 2].map((i) => parseInt(h.substr(i * f, f), 16) * (f === 1 ? 17 : 1));
  return 0.3 * v[0] + 0.59 * v[1] + 0.11 * v[2] > 150;
}
// A small round swatch of a player's colour (an SVG: the page's CSP allows no inline styles).
export function swatch(colour) {
  return `<svg class="dot" viewBox="0 0 10 10" aria-hidden="true"><circle cx="5" cy="5" r="4.4" fill="${colour}" stroke="#888" stroke-width="1"/></svg>`;
}

function starPoints(size) {
  if (size === 19) return [3, 9, 15];
  if (size === 13) return [3, 6, 9];
  if (size === 9) return [2, 4, 6];
  return [];
}

function stackVertically(topo) {
  const [layers, height, width] = topo.shape, plane = height * width;
  if (layers < 2) return topo;
  const dx = topo.xy[plane][0] - topo.xy[0][0], gap = height + 1.5;
  const xy = topo.xy.map(([x, y], i) => {
    const l = Math.floor(i / plane);
    return [x - l * dx, y + l * gap];
  });
  return { ...topo, xy };
}

export class BoardView {
  constructor(svg, topo, onTap) {
    this.svg = svg; this.onTap = onTap; this.colours = COLOURS;
    // On a narrow screen the layers of a stacked board go one above the other (twice the size).
    if (topo.kind === "stacked" && topo.shape && window.innerWidth < 700) topo = stackVertically(topo);
    this.topo = topo;
    const xy = topo.xy, links = topo.links;
    const lens = links.map(([a, b]) => Math.hypot(xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]))
      .filter((d, i) => topo.layers[links[i][0]] === topo.layers[links[i][1]] || topo.kind === "map")
      .sort((p, q) => p - q);
    this.unit = lens.length ? lens[Math.floor(lens.length / 2)] : 1;
    const u = this.unit;
    const xs = xy.map((p) => p[0]), ys = xy.map((p) => p[1]);
    // Long links on a map: wrap-arounds (torus, cube surface), drawn as numbered stubs; or, when
    // one shift in the drawing links a good share of the spots, the links between the layers of
    // a solid drawn slice by slice (each stone casts a shadow on its partners, as on 2x9x9).
    const long = links.filter(([a, b]) => !(topo.kind === "stacked" && topo.layers[a] !== topo.layers[b])
      && Math.hypot(xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]) > u * 3.2);
    const shift = ([a, b]) => `${Math.round((xy[b][0] - xy[a][0]) * 4)},${Math.round((xy[b][1] - xy[a][1]) * 4)}`;
    const counts = {};
    long.forEach((l) => { counts[shift(l)] = (counts[shift(l)] || 0) + 1; });
    const layered = (l) => counts[shift(l)] >= xy.length / 5;
    const wraps = long.filter((l) => !layered(l));
    this.partners = xy.map(() => []);
    for (const [a, b] of links) {
      if (topo.kind === "stacked" && topo.layers[a] !== topo.layers[b]) { this.partners[a].push(b); this.partners[b].push(a); }
    }
    long.filter(layered).forEach(([a, b]) => { this.partners[a].push(b); this.partners[b].push(a); });
    const skip = new Set(long.filter(layered).map(([a, b]) => `${a},${b}`));
    const pad = topo.kind === "map" ? u * (wraps.length ? 1.5 : 1.0) : u * 1.2;
    this.minX = Math.min(...xs) - pad; this.minY = Math.min(...ys) - pad * (topo.kind === "stacked" ? 1.6 : 1);
    const far = topo.kind === "map" ? pad : u * 0.6;  // grids: coordinates on the top and left only
    const w = Math.max(...xs) + far - this.minX, h = Math.max(...ys) + far - this.minY;
    svg.setAttribute("viewBox", `${this.minX} ${this.minY} ${w} ${h}`);
    svg.innerHTML = "";
    const bg = this.el("rect", { x: this.minX, y: this.minY, width: w, height: h, class: "wood" });
    svg.appendChild(bg);
    const lines = this.el("g", { class: "lines" });
    const near = xy.map(() => []);
    for (const [a, b] of links) {
      const cross = topo.kind === "stacked" && topo.layers[a] !== topo.layers[b];
      if (cross) continue; // vertical links: shown by each stone's shadow on the other layer
      const d = Math.hypot(xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]);
      if (d > u * 3.2 || skip.has(`${a},${b}`)) continue; // wraps: stubs below; layers: shadows
      near[a].push(b); near[b].push(a);
      // a link across the gap between two faces of a map's net: dashed
      const attrs = { x1: xy[a][0], y1: xy[a][1], x2: xy[b][0], y2: xy[b][1] };
      if (d > u * 2.2) attrs.class = "bridge";
      lines.appendChild(this.el("line", attrs));
    }
    svg.appendChild(lines);
    if (topo.shape) this.decorate(lines);
    if (wraps.length) this.drawWraps(lines, wraps, near);
    if (topo.kind === "map") this.drawNames(lines);
    this.marks = this.el("g", { class: "marks" });
    this.stones = this.el("g", { class: "stones" });
    // The estimate's ownership: tints under the stones, owner squares on stones it takes.
    this.shadeUnder = this.el("g", { class: "shade" });
    this.shadeOver = this.el("g", { class: "shade-over" });
    svg.appendChild(this.shadeUnder);
    svg.appendChild(this.stones); svg.appendChild(this.shadeOver); svg.appendChild(this.marks);
    const hits = this.el("g", { class: "hits" });
    xy.forEach((p, i) => {
      const c = this.el("circle", { cx: p[0], cy: p[1], r: u * 0.48, "data-spot": i, class: "hit" });
      const t = this.el("title", {}); t.textContent = topo.names[i]; c.appendChild(t);
      c.addEventListener("click", () => this.onTap && this.onTap(i));
      hits.appendChild(c);
    });
    svg.appendChild(hits);
  }
  // Each wrap-around link as a stub off both its spots, away from the board, with the same
  // number at both ends: a stone's liberty across the edge is the spot with the same number.
  drawWraps(g, wraps, near) {
    const xy = this.topo.xy, u = this.unit;
    const used = xy.map(() => []);
    const dirs = [[1, 0], [-1, 0], [0, 1], [0, -1]].concat([[1, 1], [1, -1], [-1, 1], [-1, -1]].map(([p, q]) => [p * Math.SQRT1_2, q * Math.SQRT1_2]));
    const stub = (a, b, label) => {
      // Off the board: a compass direction with no drawn neighbour and no other stub of this
      // spot near it, the nearest to the way the link would go.
      const wx = xy[a][0] - xy[b][0], wy = xy[a][1] - xy[b][1];
      const taken = [...near[a].map((n) => [xy[n][0] - xy[a][0], xy[n][1] - xy[a][1]]), ...used[a]];
      const free = dirs.filter(([p, q]) => taken.every(([tx, ty]) => (p * tx + q * ty) / (Math.hypot(tx, ty) || 1) < 0.7));
      const pool = free.length ? free : dirs;
      const [dx, dy] = pool.reduce((best, d) => (d[0] * wx + d[1] * wy > best[0] * wx + best[1] * wy ? d : best), pool[0]);
      used[a].push([dx, dy]);
      const [x, y] = xy[a], x2 = x + dx * u * 0.5, y2 = y + dy * u * 0.5;
      g.appendChild(this.el("line", { x1: x, y1: y, x2, y2, class: "wrap" }));
      const t = this.el("text", { x: x + dx * u * 0.85, y: y + dy * u * 0.85 + u * 0.1, class: "wrap-label" });
      t.textContent = label;
      g.appendChild(t);
    };
    wraps.forEach(([a, b], i) => { stub(a, b, String(i + 1)); stub(b, a, String(i + 1)); });
  }
  // A map's spot names, small, beside each spot (the names moves and alerts use).
  drawNames(g) {
    const xy = this.topo.xy, u = this.unit, names = this.topo.names;
    xy.forEach(([x, y], i) => {
      const t = this.el("text", { x: x + u * 0.3, y: y - u * 0.28, class: "spot-name" });
      t.textContent = names[i];
      g.appendChild(t);
    });
  }
  el(name, attrs) {
    const e = document.createElementNS(SVGNS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  decorate(g) {
    const [layers, height, width] = this.topo.shape, u = this.unit, xy = this.topo.xy;
    const letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    for (let l = 0; l < layers; l++) {
      const base = l * height * width;
      for (let c = 0; c < width; c++) {
        const [x, y] = xy[base + c];
        const t = this.el("text", { x, y: y - u * 0.75, class: "coord" }); t.textContent = letters[c]; g.appendChild(t);
      }
      for (let r = 0; r < height; r++) {
        const [x, y] = xy[base + r * width];
        const t = this.el("text", { x: x - u * 0.8, y: y + u * 0.15, class: "coord" }); t.textContent = String(height - r); g.appendChild(t);
      }
      if (width === height) {
        for (const r of starPoints(height)) for (const c of starPoints(width)) {
          const [x, y] = xy[base + r * width + c];
          g.appendChild(this.el("circle", { cx: x, cy: y, r: u * 0.09, class: "star" }));
        }
      }
      if (layers > 1) {
        const [x0, y0] = xy[base], [x1] = xy[base + width - 1];
        const t = this.el("text", { x: (x0 + x1) / 2, y: y0 - u * 1.45, class: "layer" });
        t.textContent = `layer ${l + 1}` + (l === 0 ? " (lower)" : " (upper)");
        g.appendChild(t);
      }
    }
  }
  update(s) {
    const xy = this.topo.xy, u = this.unit, board = s.board || [];
    if (s.players && s.players.length) this.colours = playerColours(playerNames(s.players));
    const colours = this.colours;
    const dead = new Set(s.dead || []), nml = new Set(s.no_mans_land || []);
    const parts = [];
    // Each stone's neighbours on another layer (same point) get a faint shadow.
    board.forEach((p, i) => {
      if (p < 0) return;
      for (const j of this.partners[i] || []) {
        parts.push(`<circle class="shadow p${p}" cx="${xy[j][0]}" cy="${xy[j][1]}" r="${u * 0.2}" fill="${colours[p] || COLOURS[p]}"/>`);
      }
    });
    board.forEach((p, i) => {
      if (p < 0) return;
      const fill = colours[p] || COLOURS[p];
      parts.push(`<circle class="stone p${p}${light(fill) ? " light" : ""}${dead.has(i) ? " dead" : ""}" data-spot="${i}" data-player="${p}" cx="${xy[i][0]}" cy="${xy[i][1]}" r="${u * 0.46}" fill="${fill}"/>`);
    });
    this.stones.innerHTML = parts.join("");
    const m = [];
    const last = s.last_move;
    if (last && last.spot !== null && last.spot !== undefined && board[last.spot] >= 0) {
      const [x, y] = xy[last.spot];
      m.push(`<circle class="last ${light(colours[board[last.spot]] || "#000") ? "on-light" : "on-dark"}" cx="${x}" cy="${y}" r="${u * 0.2}"/>`);
    }
    // The count: who owns each empty point (and each dead stone), once the game is counted.
    (s.territory || []).forEach((p, i) => {
      if (p === null || p === undefined || p < 0 || (board[i] >= 0 && !dead.has(i))) return;
      const [x, y] = xy[i], d = u * 0.17;
      m.push(`<rect class="terr p${p}" data-spot="${i}" data-owner="${p}" x="${x - d}" y="${y - d}" width="${2 * d}" height="${2 * d}" fill="${colours[p] || COLOURS[p]}"/>`);
    });
    dead.forEach((i) => {
      const [x, y] = xy[i], d = u * 0.28;
      m.push(`<path class="dead-x" d="M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}"/>`);
    });
    nml.forEach((i) => {
      const [x, y] = xy[i], d = u * 0.22;
      m.push(`<rect class="nml" x="${x - d}" y="${y - d}" width="${2 * d}" height="${2 * d}"/>`);
    });
    for (const i of s.alert_spots || []) {
      const [x, y] = xy[i];
      m.push(`<circle class="alert-ring" cx="${x}" cy="${y}" r="${u * 0.56}"/>`);
    }
    if (s.phase === "cleanup" && s.suggested) {
      for (const i of s.suggested.unsure) {
        const [x, y] = xy[i];
        m.push(`<circle class="unsure-ring" data-spot="${i}" cx="${x}" cy="${y}" r="${u * 0.56}"/>`);
      }
    }
    this.marks.innerHTML = m.join("");
  }
  // est: /api/estimate's owners and shares per spot, unsure_spots; board: the stones it saw.
  showEstimate(est, board) {
    const xy = this.topo.xy, u = this.unit, under = [], over = [];
    const cell = this.topo.kind !== "map";
    est.owners.forEach((p, i) => {
      if (p === null || p === undefined) return;
      const strength = est.strength[i];
      const [x, y] = xy[i];
      if (board[i] === p) return;  // the owner's own stone: nothing to show
      if (board[i] >= 0) {  // a stone the estimate gives to another player
        const d = u * 0.2;
        over.push(`<rect class="own-mark p${p}" data-spot="${i}" x="${x - d}" y="${y - d}" width="${2 * d}" height="${2 * d}" fill="${this.colours[p] || COLOURS[p]}" opacity="${(0.5 + 0.5 * strength).toFixed(2)}"/>`);
        return;
      }
      const op = (0.2 + 0.55 * strength).toFixed(2);
      under.push(cell
        ? `<rect class="own p${p}" data-spot="${i}" x="${x - u / 2}" y="${y - u / 2}" width="${u}" height="${u}" fill="${this.colours[p] || COLOURS[p]}" opacity="${op}"/>`
        : `<circle class="own p${p}" data-spot="${i}" cx="${x}" cy="${y}" r="${u * 0.5}" fill="${this.colours[p] || COLOURS[p]}" opacity="${op}"/>`);
    });
    for (const i of est.unsure_spots || []) {
      const [x, y] = xy[i];
      over.push(`<circle class="unsure-ring" data-spot="${i}" cx="${x}" cy="${y}" r="${u * 0.56}"/>`);
    }
    this.shadeUnder.innerHTML = under.join("");
    this.shadeOver.innerHTML = over.join("");
  }
  hideEstimate() { this.shadeUnder.innerHTML = ""; this.shadeOver.innerHTML = ""; }
}
