// Drag four corners on a still frame; the grid between them shows whether they sit right.
"use strict";
(function () {
  const img = document.getElementById("still"), svg = document.getElementById("overlay");
  const root = document.getElementById("calib");
  const lines = parseInt((root.dataset.board.match(/^\d+/) || ["19"])[0], 10);
  let corners = root.dataset.corners ? JSON.parse(root.dataset.corners) : null;
  let W = 0, H = 0, drag = -1, reads = [];
  const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  function draw() {
    const [tl, tr, br, bl] = corners;
    let out = "";
    for (let i = 0; i < lines; i++) {
      const t = i / (lines - 1);
      const a = lerp(tl, tr, t), b = lerp(bl, br, t), c = lerp(tl, bl, t), d = lerp(tr, br, t);
      out += `<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/><line x1="${c[0]}" y1="${c[1]}" x2="${d[0]}" y2="${d[1]}"/>`;
    }
    const r = Math.max(W, H) / 60;
    for (const [x, y, t] of reads) {
      out += `<circle class="read read-${t === "?" ? "u" : t}" cx="${x}" cy="${y}" r="${r * 0.6}"/>`;
    }
    corners.forEach((p, i) => { out += `<circle class="handle" data-i="${i}" cx="${p[0]}" cy="${p[1]}" r="${r}"/>`; });
    svg.innerHTML = out;
  }
  function init() {
    W = img.naturalWidth; H = img.naturalHeight;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    corners = corners || [[W * 0.2, H * 0.2], [W * 0.8, H * 0.2], [W * 0.8, H * 0.8], [W * 0.2, H * 0.8]];
    draw();
    if (companion.authed()) preview();
  }
  function toImage(ev) {
    const r = svg.getBoundingClientRect();
    return [Math.min(W, Math.max(0, (ev.clientX - r.left) * W / r.width)), Math.min(H, Math.max(0, (ev.clientY - r.top) * H / r.height))];
  }
  svg.addEventListener("pointerdown", (ev) => {
    const t = ev.target;
    if (t.classList && t.classList.contains("handle")) { drag = parseInt(t.dataset.i, 10); svg.setPointerCapture(ev.pointerId); }
  });
  svg.addEventListener("pointermove", (ev) => { if (drag >= 0) { corners[drag] = toImage(ev); draw(); } });
  svg.addEventListener("pointerup", () => { if (drag >= 0) preview(); drag = -1; });
  // What the reader sees with these corners, at once (B, W and ? drawn on the picture).
  async function preview() {
    const out = document.getElementById("calib-result");
    const data = await companion.post("/api/calibration/preview", { name: "preview", image: [W, H], corners });
    if (!data.ok) { out.className = "refusal"; out.textContent = data.error; reads = []; draw(); return; }
    reads = data.points.map((p, i) => [p[0], p[1], data.states[i]]).filter((r) => r[2] !== ".");
    const counts = { B: 0, W: 0, "?": 0 };
    data.states.forEach((t) => { if (t in counts) counts[t]++; });
    out.className = ""; out.textContent = `the reader sees ${counts.B} black, ${counts.W} white, ${counts["?"]} unsure`;
    draw();
  }
  if (img.complete && img.naturalWidth) init(); else img.addEventListener("load", init);
  document.getElementById("refresh").addEventListener("click", () => { img.src = "/camera.jpg?t=" + Date.now(); });
  document.getElementById("calib-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const out = document.getElementById("calib-result");
    const name = ev.target.elements.name.value.trim();
    const data = await companion.post("/api/calibration", { name, image: [W, H], corners });
    out.className = data.ok ? "" : "refusal";
    out.textContent = data.ok ? `saved ${data.saved}` : data.error;
  });
})();
