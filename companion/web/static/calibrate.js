// Calibration on a still frame: place the board's corners (one quad per layer of a grid or a
// stacked board) or a map's spots, see what the reader reads at once, save the profile.
import * as companion from "./common.js";
(function () {
  const img = document.getElementById("still"), svg = document.getElementById("overlay");
  const root = document.getElementById("calib"), out = document.getElementById("calib-result");
  const topo = JSON.parse(root.dataset.topology);
  const initial = root.dataset.initial ? JSON.parse(root.dataset.initial) : null;
  const isMap = topo.kind === "map";
  let W = 0, H = 0, reads = [], drag = null, selected = null, asked = 0, timer = 0;
  // grids and stacked boards: per layer the four corners TL, TR, BR, BL in picture pixels
  let quads = [];
  // maps: where the corners of the drawing's box land in the picture (a homography places
  // every spot), plus each spot's own fine-tuning in pixels
  let frame = [], nudges = [], box = [0, 0, 1, 1];
  const findButton = document.getElementById("find");

  const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  const r1 = (v) => Math.round(v * 10) / 10;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  // Solve A x = b (n x n, partial pivoting); null when singular.
  function solve(A, b) {
    const n = b.length, M = A.map((row, i) => row.concat([b[i]]));
    for (let c = 0; c < n; c++) {
      let p = c;
      for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
      if (Math.abs(M[p][c]) < 1e-12) return null;
      [M[c], M[p]] = [M[p], M[c]];
      for (let r = 0; r < n; r++) {
        if (r === c) continue;
        const f = M[r][c] / M[c][c];
        for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
      }
    }
    return M.map((row, i) => row[n] / row[i]);
  }
  // The homography taking four points src onto four points dst (h33 = 1).
  function homography(src, dst) {
    const A = [], b = [];
    for (let i = 0; i < 4; i++) {
      const [x, y] = src[i], [u, v] = dst[i];
      A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.push(u);
      A.push([0, 0, 0, x, y, 1, -v * x, -v * y]); b.push(v);
    }
    const h = solve(A, b);
    return h ? h.concat([1]) : null;
  }
  const apply = (h, [x, y]) => {
    const w = h[6] * x + h[7] * y + h[8];
    return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
  };
  const boxCorners = () => [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]];
  // Every map spot in picture pixels (the fitted map plus the spot's own nudge).
  function spotPixels() {
    const h = homography(boxCorners(), frame);
    return topo.xy.map((p, i) => {
      const q = h ? apply(h, p) : [NaN, NaN];
      return [q[0] + nudges[i][0], q[1] + nudges[i][1]];
    });
  }
  function spacingPx(points) {
    const d = topo.links.map(([a, b]) => Math.hypot(points[a][0] - points[b][0], points[a][1] - points[b][1])).sort((a, b) => a - b);
    return d.length ? d[d.length >> 1] : Math.max(W, H) / 40;
  }

  function drawGrid(quad, layer, r) {
    const [, h, w] = topo.shape;
    const [tl, tr, br, bl] = quad;
    let s = `<polygon class="body" data-kind="body" data-q="${layer}" points="${quad.map((p) => p.join(",")).join(" ")}"/>`;
    // the lines through the quad's perspective (a camera's view of a square board), so the
    // grid drawn lies on the board's lines wherever the handles are right; bilinear between
    // the corners when the handles make no homography (all on one line)
    const hg = homography([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], quad);
    const at = (x, y) => hg ? apply(hg, [x, y])
      : lerp(lerp(tl, tr, x / (w - 1)), lerp(bl, br, x / (w - 1)), y / (h - 1));
    for (let i = 0; i < w; i++) {
      const a = at(i, 0), b = at(i, h - 1);
      s += `<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>`;
    }
    for (let i = 0; i < h; i++) {
      const c = at(0, i), d = at(w - 1, i);
      s += `<line x1="${c[0]}" y1="${c[1]}" x2="${d[0]}" y2="${d[1]}"/>`;
    }
    if (topo.layers.length > 1) {
      s += `<text class="layer-label" x="${tl[0]}" y="${tl[1] - r * 1.6}" font-size="${r * 1.6}">${esc(topo.layers[layer])}</text>`;
    }
    quad.forEach((p, i) => { s += `<circle class="handle" data-kind="corner" data-q="${layer}" data-i="${i}" cx="${p[0]}" cy="${p[1]}" r="${r}"><title>${esc(topo.layers[layer])} corner ${i + 1}</title></circle>`; });
    return s;
  }
  function drawMap(r) {
    const pts = spotPixels(), sp = spacingPx(pts);
    let s = `<polygon class="frame" data-kind="frame-body" points="${frame.map((p) => p.join(",")).join(" ")}"/>`;
    for (const [a, b] of topo.links) {
      if (Math.hypot(pts[a][0] - pts[b][0], pts[a][1] - pts[b][1]) > 1.6 * sp) continue; // wrap-around links
      s += `<line x1="${pts[a][0]}" y1="${pts[a][1]}" x2="${pts[b][0]}" y2="${pts[b][1]}"/>`;
    }
    const rs = Math.max(3, Math.min(r, sp * 0.3));
    pts.forEach((p, i) => {
      const moved = nudges[i][0] !== 0 || nudges[i][1] !== 0;
      s += `<circle class="spot${moved ? " moved" : ""}" data-kind="spot" data-i="${i}" data-id="${esc(topo.ids[i])}" cx="${p[0]}" cy="${p[1]}" r="${rs}"><title>spot ${esc(topo.ids[i])}</title></circle>`;
      if (sp > 24) s += `<text class="spot-label" x="${p[0] + rs * 1.1}" y="${p[1] - rs * 1.1}" font-size="${Math.min(sp * 0.22, r)}">${esc(topo.ids[i])}</text>`;
    });
    frame.forEach((p, i) => { s += `<rect class="handle frame-handle" data-kind="frame" data-i="${i}" x="${p[0] - r}" y="${p[1] - r}" width="${2 * r}" height="${2 * r}"><title>map corner ${i + 1}</title></rect>`; });
    return s;
  }
  function draw() {
    const r = Math.max(W, H) / 60;
    let s = isMap ? drawMap(r) : quads.map((q, l) => drawGrid(q, l, r)).join("");
    for (const [x, y, t] of reads) {
      s += `<circle class="read read-${t === "?" ? "u" : t}" cx="${x}" cy="${y}" r="${r * 0.6}"/>`;
    }
    svg.innerHTML = s;
  }

  // Where things start: the camera's profile for this board, else where the finder finds the
  // board (a guess in the middle until it answers, or if it finds none).
  function init() {
    W = img.naturalWidth; H = img.naturalHeight;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    if (isMap) initMap(); else initGrid();
    draw();
    const saved = initial && (initial.regions || initial.spots);
    if (!companion.authed()) return;
    if (!isMap && !saved) findBoard(); else preview();
  }
  // The finder on this still: the handles go where it puts the corners, or onto the grid it
  // found but doubts (the player judges that one by the lines drawn), then the reader reads.
  async function findBoard() {
    if (isMap) return;
    const mine = ++asked;
    say("Looking for the board…", false);
    root.classList.add("reading");
    if (findButton) findButton.disabled = true;
    const data = await companion.post("/api/calibration/find", {});
    if (findButton) findButton.disabled = false;
    if (mine !== asked) return;  // the player moved a handle meanwhile: theirs stands
    root.classList.remove("reading");
    const got = data.ok ? data.regions : data.suggested;
    if (!got || got.length !== quads.length) { say(data.error || "no board found: drag the handles onto its corners", true); return; }
    quads = got.map((q) => q.map((p) => clamp([p[0], p[1]])));
    draw();
    await preview(data.ok ? "Board found: check that the grid lies on its lines. "
      : "Not sure this is the board (" + data.error + "): if the grid does not lie on its lines, drag the handles. ");
  }
  function initGrid() {
    const n = topo.shape[0];
    if (initial && initial.regions && initial.regions.length === n) { quads = initial.regions; return; }
    const slot = W / n, side = Math.min(slot * 0.7, H * 0.7);
    quads = [];
    for (let l = 0; l < n; l++) {
      const cx = slot * (l + 0.5), cy = H / 2, h = side / 2;
      quads.push([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]]);
    }
  }
  function initMap() {
    const xs = topo.xy.map((p) => p[0]), ys = topo.xy.map((p) => p[1]);
    const pad = 0.5;
    box = [Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) + pad, Math.max(...ys) + pad];
    nudges = topo.xy.map(() => [0, 0]);
    const bw = box[2] - box[0], bh = box[3] - box[1];
    const k = Math.min(W * 0.8 / bw, H * 0.8 / bh), x0 = (W - bw * k) / 2, y0 = (H - bh * k) / 2;
    frame = [[x0, y0], [x0 + bw * k, y0], [x0 + bw * k, y0 + bh * k], [x0, y0 + bh * k]];
    if (initial && initial.spots && initial.spots.length === topo.xy.length) fitTo(initial.spots);
  }
  // Fit the map onto saved spots (least-squares affine), the rest is each spot's nudge.
  function fitTo(spots) {
    const AtA = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], Atu = [0, 0, 0], Atv = [0, 0, 0];
    topo.xy.forEach(([x, y], i) => {
      const a = [x, y, 1];
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) AtA[r][c] += a[r] * a[c];
        Atu[r] += a[r] * spots[i][0]; Atv[r] += a[r] * spots[i][1];
      }
    });
    const pu = solve(AtA, Atu), pv = solve(AtA, Atv);
    if (!pu || !pv) return;
    frame = boxCorners().map(([x, y]) => [pu[0] * x + pu[1] * y + pu[2], pv[0] * x + pv[1] * y + pv[2]]);
    const fitted = spotPixels();
    nudges = spots.map((p, i) => [p[0] - fitted[i][0], p[1] - fitted[i][1]]);
  }

  // Dragging: a corner, a whole quad, a map corner, the whole map or one spot.
  function toImage(ev) {
    const r = svg.getBoundingClientRect();
    return [(ev.clientX - r.left) * W / r.width, (ev.clientY - r.top) * H / r.height];
  }
  const clamp = (p) => [Math.min(W, Math.max(0, p[0])), Math.min(H, Math.max(0, p[1]))];
  function target(t) {
    const kind = t.dataset ? t.dataset.kind : undefined;
    if (!kind) return null;
    return { kind, q: parseInt(t.dataset.q || "0", 10), i: parseInt(t.dataset.i || "0", 10) };
  }
  function points(tg) {  // the points a target moves (copied)
    if (tg.kind === "corner") return [quads[tg.q][tg.i].slice()];
    if (tg.kind === "body") return quads[tg.q].map((p) => p.slice());
    if (tg.kind === "frame") return [frame[tg.i].slice()];
    if (tg.kind === "frame-body") return frame.map((p) => p.slice());
    return [nudges[tg.i].slice()];
  }
  function move(tg, from, d) {
    if (tg.kind === "corner") quads[tg.q][tg.i] = clamp([from[0][0] + d[0], from[0][1] + d[1]]);
    else if (tg.kind === "frame") frame[tg.i] = clamp([from[0][0] + d[0], from[0][1] + d[1]]);
    else if (tg.kind === "spot") nudges[tg.i] = [from[0][0] + d[0], from[0][1] + d[1]];
    else {  // a whole quad or the whole map: keep every handle in the picture
      const xs = from.map((p) => p[0]), ys = from.map((p) => p[1]);
      const dx = Math.min(W - Math.max(...xs), Math.max(-Math.min(...xs), d[0]));
      const dy = Math.min(H - Math.max(...ys), Math.max(-Math.min(...ys), d[1]));
      const moved = from.map((p) => [p[0] + dx, p[1] + dy]);
      if (tg.kind === "body") quads[tg.q] = moved; else frame = moved;
    }
  }
  svg.addEventListener("pointerdown", (ev) => {
    const tg = target(ev.target);
    if (!tg) return;
    ev.preventDefault();
    drag = { tg, start: toImage(ev), from: points(tg) };
    selected = tg;
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const p = toImage(ev);
    move(drag.tg, drag.from, [p[0] - drag.start[0], p[1] - drag.start[1]]);
    draw();
  });
  svg.addEventListener("pointerup", () => { if (drag) { drag = null; preview(); } });
  // Precise adjustment: the arrow keys move what was dragged last by 1 px (Shift: 10 px).
  document.addEventListener("keydown", (ev) => {
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!selected || !(ev.key in steps) || (ev.target && ev.target.tagName === "INPUT")) return;
    ev.preventDefault();
    const k = ev.shiftKey ? 10 : 1, d = steps[ev.key];
    move(selected, points(selected), [d[0] * k, d[1] * k]);
    draw();
    clearTimeout(timer);
    timer = setTimeout(preview, 400);
  });

  // The request body: corners per layer, or every spot by id.
  function placed(name) {
    const body = { name, board: topo.spec, image: [W, H] };
    if (isMap) {
      const pts = spotPixels();
      body.spots = {};
      topo.ids.forEach((id, i) => { body.spots[id] = [r1(pts[i][0]), r1(pts[i][1])]; });
    } else if (quads.length === 1) {
      body.corners = quads[0].map((p) => [r1(p[0]), r1(p[1])]);
    } else {
      body.regions = quads.map((q, l) => ({ layer: l, corners: q.map((p) => [r1(p[0]), r1(p[1])]) }));
    }
    return body;
  }
  function say(text, bad) { out.className = bad ? "refusal" : ""; out.textContent = text; }
  function summary(states) {
    const per = isMap ? states.length : topo.shape[1] * topo.shape[2];
    const parts = [];
    for (let l = 0; l * per < states.length; l++) {
      const c = { B: 0, W: 0, "?": 0 };
      states.slice(l * per, (l + 1) * per).forEach((t) => { if (t in c) c[t]++; });
      const head = !isMap && topo.layers.length > 1 ? topo.layers[l] + ": " : "";
      parts.push(`${head}${c.B} black, ${c.W} white, ${c["?"]} unsure`);
    }
    return "the reader sees " + parts.join("; ");
  }
  // What the reader sees with what is placed now, at once (stale answers are dropped).
  async function preview(note) {
    const mine = ++asked;
    root.classList.add("reading");
    const data = await companion.post("/api/calibration/preview", placed("preview"));
    if (mine !== asked) return;
    root.classList.remove("reading");
    if (!data.ok) { say(data.error, true); reads = []; draw(); return; }
    reads = data.points.map((p, i) => [p[0], p[1], data.states[i]]).filter((r) => r[2] !== ".");
    say((typeof note === "string" ? note : "") + summary(data.states), false);
    draw();
  }
  // A new still frame: start over if its size changed, else read it with what is placed.
  img.addEventListener("load", () => {
    if (img.naturalWidth !== W || img.naturalHeight !== H) init();
    else if (companion.authed()) preview();
  });
  if (img.complete && img.naturalWidth) init();
  document.getElementById("refresh").addEventListener("click", () => { img.src = "/camera.jpg?t=" + Date.now(); });
  if (findButton) findButton.addEventListener("click", findBoard);
  document.getElementById("calib-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearTimeout(timer); asked++; root.classList.remove("reading");  // no read answer after this
    const data = await companion.post("/api/calibration", placed(ev.target.elements.name.value.trim()));
    say(data.ok ? `saved ${data.saved}` : data.error, !data.ok);
  });
})();
