// The /score page: read a photo on the table, fix what was misread, confirm the dead stones,
// see the count, save it. The photo stays in this browser until it is saved.
import { csrf, authed, post } from "./common.js";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const CYCLE = { "?": "B", B: "W", W: ".", ".": "B" };

const state = {
  file: null, url: null, reading: null, tokens: [], original: [],
  mode: "none", // none | fix | dead | done
  count: null, dead: new Set(), dame: new Set(), busy: false,
  // corners placed by hand: taps as shares of the photo's width and height while placing,
  // then the four used for every read of this photo (until another photo or a new placing)
  placing: false, taps: [], corners: null,
  // where no board was found but the grid check refused a grid: that grid ({size, corners,
  // lines} as shares), drawn over the photo for the player to take or not
  suggested: null, offered: false, // offered: the corners in use are the grid offered
};

function say(text) { $("score-status").textContent = text; }
function refuse(text) {
  const el = $("score-refusal");
  el.textContent = text || "";
  el.hidden = !text;
}

async function waitFor(resp) {
  // A 202 with a job id: ask again until the worker has the answer.
  let data = await resp.json().catch(() => ({ ok: false, error: "the table did not answer (" + resp.status + ")" }));
  while (data.pending && data.job) {
    await new Promise((r) => setTimeout(r, 300));
    const again = await fetch("/api/score/jobs/" + encodeURIComponent(data.job), { credentials: "same-origin" });
    const next = await again.json().catch(() => ({ ok: false, error: "the table did not answer (" + again.status + ")" }));
    if (!next.pending) return next;
  }
  return data;
}

function options() {
  const komi = $("komi").value.trim();
  const pb = $("prisoners-b").value.trim(), pw = $("prisoners-w").value.trim();
  return {
    rules: $("rules").value,
    komi: komi === "" ? null : Number(komi),
    prisoners: pb === "" && pw === "" ? null : [Number(pb || 0), Number(pw || 0)],
  };
}

function countBody(withMarks) {
  const body = { size: state.reading.size, tokens: state.tokens, ...options() };
  if (withMarks) { body.dead = [...state.dead]; body.dame = [...state.dame]; }
  return body;
}

// ------------------------------------------------------------------ reading the photo
async function readPhoto() {
  if (!state.file || state.busy) return;
  state.busy = true;
  refuse("");
  $("reread").disabled = true;
  $("place").disabled = true;
  say("Reading the photo…");
  try {
    const size = $("size").value;
    let query = "/api/score/read?size=" + encodeURIComponent(size);
    if (state.corners) query += "&corners=" + state.corners.flat().map((v) => v.toFixed(5)).join(",");
    const resp = await fetch(query, {
      method: "POST", credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf(), "Content-Type": state.file.type || "application/octet-stream" },
      body: state.file,
    });
    const data = await waitFor(resp);
    if (!data.ok) {
      const lost = !state.corners && /no board found/.test(data.error || "");
      state.suggested = lost && data.suggested ? data.suggested : null;
      if (state.suggested && takeable(state.suggested)) {
        const n = state.suggested.size;
        say(`No board was sure. Is the ${n}x${n} grid drawn on the photo on the board's lines? ` +
          "Take it if so, else choose the size and Place the corners.");
      } else if (state.suggested) {
        say("No board was sure, and the grid drawn runs past the photo's edge: choose the size, " +
          "then Place the corners and tap its four corner points.");
      } else {
        say(lost ? "No board was found: choose its size, then Place the corners and tap its four corner points." : "The photo could not be read.");
      }
      refuse(data.error);
      show();
      return;
    }
    state.suggested = null;
    state.reading = data;
    state.tokens = data.tokens.slice();
    state.original = data.tokens.slice();
    state.count = null; state.dead = new Set(); state.dame = new Set();
    state.mode = "fix";
    $("size").value = [9, 13, 19].includes(data.size) ? String(data.size) : "auto";
    const given = state.offered ? "from the grid offered" : "placed by hand";
    const from = data.corners_from === "found" ? "found on the photo" : data.corners_from === "given" ? given : data.corners_from;
    say(`Read a ${data.size}x${data.size} board (corners ${from}).`);
    show();
  } catch (e) {
    say("The photo could not be sent."); refuse(String(e));
  } finally {
    state.busy = false;
    $("reread").disabled = !state.file;
    $("place").disabled = !state.file;
  }
}

// ------------------------------------------------------------------ the grid suggested
// A corner past the photo's edge cannot be taken as if tapped: then only Place the corners.
function takeable(sg) { return sg.corners.flat().every((v) => v >= 0 && v <= 1); }

// The grid the table refused, taken by the player: read as if its corners were tapped.
function takeSuggested() {
  const sg = state.suggested;
  if (!sg || state.busy) return;
  state.corners = sg.corners.map((c) => c.slice());
  state.suggested = null; state.offered = true;
  const size = $("size");
  if (![...size.options].some((o) => o.value === String(sg.size))) {
    size.append(new Option(`${sg.size}x${sg.size}`, String(sg.size)));
  }
  size.value = String(sg.size);
  readPhoto();
}

// ------------------------------------------------------------------ corners by hand
// Where the finder found no board (or the wrong grid): the player taps the board's four
// corner points on the whole photo; the table snaps them onto the grid and reads with them.
function startPlacing() {
  if (!state.file || state.busy) return;
  state.placing = true; state.taps = []; state.corners = null; state.suggested = null;
  state.offered = false;
  state.reading = null; state.mode = "none"; state.count = null;
  refuse("");
  say("Tap the board's four corner points (the outermost crossings), in any order.");
  show();
}

function placeTap(e) {
  const img = $("preview"), box = img.getBoundingClientRect();
  if (!box.width || !box.height) return;
  const x = (e.clientX - box.left) / box.width, y = (e.clientY - box.top) / box.height;
  if (x < 0 || x > 1 || y < 0 || y > 1) return;
  state.taps.push([x, y]);
  draw();
  if (state.taps.length < 4) {
    say(`Corner ${state.taps.length} of 4 placed: tap the next.`);
    return;
  }
  state.placing = false;
  state.corners = state.taps.slice();
  if ($("size").value === "auto") {
    say("Four corners placed: choose the board's size (the corners do not tell it).");
    draw();
    return;
  }
  readPhoto();
}

// ------------------------------------------------------------------ counting
async function suggest() {
  if (!state.reading || state.busy) return;
  if (state.tokens.includes("?")) { show(); return; }
  state.busy = true;
  refuse("");
  say("Looking for dead stones…");
  try {
    const resp = await fetch("/api/score/count", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(countBody(false)),
    });
    const data = await waitFor(resp);
    if (!data.ok) { say("This board cannot be counted yet."); refuse(data.error); return; }
    state.dead = new Set(data.dead_spots);
    state.dame = new Set(data.dame_spots);
    state.count = data;
    state.mode = "dead";
    say("Counted with the suggested dead stones: check them.");
    show();
  } finally { state.busy = false; }
}

async function recount() {
  const data = await post("/api/score/count", countBody(true));
  if (!data.ok) { refuse(data.error); return; }
  refuse("");
  state.count = data;
  show();
}

async function save() {
  if (state.mode !== "done") return;
  const form = new FormData();
  form.append("photo", state.file);
  form.append("score", JSON.stringify(countBody(true)));
  say("Saving…");
  const resp = await fetch("/api/score/save", {
    method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": csrf() }, body: form,
  });
  const data = await resp.json().catch(() => ({ ok: false, error: "the table did not answer (" + resp.status + ")" }));
  if (!data.ok) { say("Not saved."); refuse(data.error); return; }
  refuse("");
  say(`Saved as scored position #${data.id}.`);
  const note = $("saved-note");
  note.hidden = false;
  note.innerHTML = "";
  const link = document.createElement("a");
  link.href = data.url; link.textContent = `Scored position #${data.id} in the archive`;
  note.append(link);
}

// ------------------------------------------------------------------ taps
function chainOf(spot) {
  const n = state.reading.size, colour = state.tokens[spot], seen = new Set([spot]), todo = [spot];
  while (todo.length) {
    const s = todo.pop(), r = Math.floor(s / n), c = s % n;
    for (const [dr, dc] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const rr = r + dr, cc = c + dc, t = rr * n + cc;
      if (rr >= 0 && rr < n && cc >= 0 && cc < n && !seen.has(t) && state.tokens[t] === colour) { seen.add(t); todo.push(t); }
    }
  }
  return [...seen];
}

function tap(spot) {
  if (state.busy || !state.reading) return;
  if (state.mode === "fix") {
    state.tokens[spot] = CYCLE[state.tokens[spot]] || "B";
    show();
    return;
  }
  const token = state.tokens[spot];
  if (token === "B" || token === "W") {
    const chain = chainOf(spot), dead = !state.dead.has(spot);
    for (const s of chain) { if (dead) state.dead.add(s); else state.dead.delete(s); }
  } else if (state.dame.has(spot)) state.dame.delete(spot);
  else state.dame.add(spot);
  state.mode = "dead";
  say("Counted with the dead stones as you marked them.");
  recount();
}

// ------------------------------------------------------------------ drawing
function el(name, attrs) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// Show the board, not the whole photo: the picture is cropped to the grid and a margin.
function frame(spacing) {
  const wrap = $("photo-wrap"), img = $("preview"), svg = $("marks"), rd = state.reading;
  if (!rd) {
    wrap.style.aspectRatio = "";
    wrap.style.maxWidth = "";
    for (const node of [img, svg]) {
      for (const k of ["position", "width", "height", "left", "top", "maxWidth"]) node.style[k] = "";
    }
    return;
  }
  crop(rd.image, rd.points.map((p) => p[0]), rd.points.map((p) => p[1]), spacing * 1.2);
}

// The photo ([w, h] pixels) cropped to the points xs, ys and a margin m, on one screen.
function crop([w, h], xs, ys, m) {
  const wrap = $("photo-wrap"), img = $("preview"), svg = $("marks");
  const x0 = Math.max(0, Math.min(...xs) - m), x1 = Math.min(w, Math.max(...xs) + m);
  const y0 = Math.max(0, Math.min(...ys) - m), y1 = Math.min(h, Math.max(...ys) + m);
  const bw = Math.max(1, x1 - x0), bh = Math.max(1, y1 - y0);
  wrap.style.aspectRatio = `${bw} / ${bh}`;
  wrap.style.maxWidth = `calc((100vh - 5rem) * ${bw / bh})`; // the whole board on one screen
  // CSSOM, not a style attribute: the page's CSP allows no inline styles
  const place = {
    position: "absolute", maxWidth: "none",
    width: `${(w / bw) * 100}%`, height: `${(h / bh) * 100}%`,
    left: `${(-x0 / bw) * 100}%`, top: `${(-y0 / bh) * 100}%`,
  };
  Object.assign(img.style, place);
  Object.assign(svg.style, place);
}

function draw() {
  const svg = $("marks"), rd = state.reading;
  svg.innerHTML = "";
  if (!rd) { frame(0); drawTaps(); return; }
  const [w, h] = rd.image;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const p = rd.points;
  const spacing = Math.hypot(p[1][0] - p[0][0], p[1][1] - p[0][1]) || 20;
  const r = spacing * 0.42, sw = Math.max(1, r * 0.14);
  frame(spacing);
  const terr = state.count && state.mode !== "fix" ? state.count.territory : { B: [], W: [] };
  const owner = {};
  for (const s of terr.B) owner[s] = "B";
  for (const s of terr.W) owner[s] = "W";
  p.forEach(([x, y], s) => {
    const g = el("g", { class: "pt", "data-spot": s, "data-token": state.tokens[s] });
    const t = state.tokens[s];
    if (t === "B" || t === "W") g.append(el("circle", { class: `stone ${t}`, cx: x, cy: y, r, "stroke-width": sw }));
    else if (t === "?") {
      g.append(el("circle", { class: "unknown", cx: x, cy: y, r: r * 0.8, "stroke-width": sw }));
      const q = el("text", { class: "unknown-text", x, y, "font-size": r * 1.1 });
      q.textContent = "?";
      g.append(q);
    }
    if (state.mode !== "fix") {
      if (owner[s] && (!(t === "B" || t === "W") || state.dead.has(s))) {
        const a = r * 0.45;
        g.append(el("rect", { class: `terr ${owner[s]}`, x: x - a / 2, y: y - a / 2, width: a, height: a, "stroke-width": sw / 2 }));
      }
      if (state.dame.has(s)) g.append(el("circle", { class: "dame", cx: x, cy: y, r: r * 0.25 }));
      if (state.dead.has(s)) {
        const a = r * 0.6;
        g.append(el("path", { class: "dead-x", d: `M${x - a} ${y - a}L${x + a} ${y + a}M${x + a} ${y - a}L${x - a} ${y + a}`, "stroke-width": sw * 1.6 }));
      }
    }
    if (t !== state.original[s]) g.append(el("circle", { class: "changed", cx: x, cy: y, r: r * 1.12, "stroke-width": sw }));
    g.append(el("circle", { class: "hit", cx: x, cy: y, r: spacing / 2 }));
    svg.append(g);
  });
}

// The corners tapped so far, or the grid suggested, over the whole photo (no reading yet to
// frame it by).
function drawTaps() {
  const svg = $("marks"), img = $("preview");
  const taps = state.placing ? state.taps : state.corners || [];
  const sg = state.placing ? null : state.suggested;
  svg.classList.toggle("placing", state.placing);
  if ((!taps.length && !sg) || !img.naturalWidth) return;
  const w = img.naturalWidth, h = img.naturalHeight, r = Math.max(w, h) * 0.012;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  if (sg) {
    // cropped to the grid offered, as a reading is, so its lines can be judged on a phone
    const xs = sg.lines.flatMap(([x1, , x2]) => [x1 * w, x2 * w]);
    const ys = sg.lines.flatMap(([, y1, , y2]) => [y1 * h, y2 * h]);
    const step = (Math.max(...xs) - Math.min(...xs) + Math.max(...ys) - Math.min(...ys)) / (sg.size - 1) / 2;
    crop([w, h], xs, ys, step * 1.5);
    const g = el("g", { class: "suggested", "data-size": sg.size });
    for (const [x1, y1, x2, y2] of sg.lines) {
      g.append(el("line", { x1: x1 * w, y1: y1 * h, x2: x2 * w, y2: y2 * h, "stroke-width": step * 0.08 }));
    }
    svg.append(g);
  }
  taps.forEach(([x, y], i) => {
    svg.append(el("circle", { class: "tap", cx: x * w, cy: y * h, r, "stroke-width": r * 0.3, "data-tap": i }));
  });
}

function names(spots) {
  const n = state.reading.size, letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
  return [...spots].sort((a, b) => a - b).map((s) => letters[s % n] + (n - Math.floor(s / n)));
}

function show() {
  const rd = state.reading;
  $("photo-wrap").hidden = !state.url;
  const sg = state.suggested;
  $("take").hidden = !sg || !takeable(sg);
  $("steps").hidden = !rd;
  draw();
  if (!rd) return;
  const unknown = state.tokens.map((t, s) => (t === "?" ? s : -1)).filter((s) => s >= 0);
  const u = $("unknown");
  u.hidden = !unknown.length || state.mode !== "fix";
  u.textContent = unknown.length ? `${unknown.length} point${unknown.length > 1 ? "s" : ""} could not be read (${names(unknown).join(", ")}): tap each to say what is there.` : "";
  const help = {
    fix: "Tap a point to fix it: it goes black, white, empty in turn. Then count.",
    dead: "Tap a stone to mark its group dead (or alive again); tap an empty point to make it dame. Then confirm.",
    done: "Confirmed. Tap the board to change the dead stones again.",
  };
  $("mode-help").textContent = help[state.mode] || "";
  $("count").hidden = state.mode !== "fix";
  $("count").disabled = unknown.length > 0;
  $("count").textContent = "Count";
  $("confirm").hidden = state.mode !== "dead";
  $("save").hidden = state.mode !== "done";
  $("save").disabled = !authed();
  $("save").title = authed() ? "" : "saving needs the table PIN: log in first";
  if (state.mode !== "fix" && !$("fix-again")) addFixButton();
  if ($("fix-again")) $("fix-again").hidden = state.mode === "fix";
  const box = $("result");
  box.hidden = !state.count || state.mode === "fix";
  if (state.count && state.mode !== "fix") {
    $("result-text").textContent = state.count.result;
    $("result-state").textContent = state.mode === "done" ? "confirmed" : (state.count.suggested ? "suggested dead stones" : "your dead stones");
    const ul = $("explain");
    ul.innerHTML = "";
    for (const line of state.count.explain) { const li = document.createElement("li"); li.textContent = line; ul.append(li); }
    const dead = state.count.dead.length ? state.count.dead.join(", ") : "none";
    const unsure = state.count.unsure && state.count.unsure.length ? ` · unsure, look again: ${state.count.unsure.join(", ")}` : "";
    $("dead-list").textContent = `Dead stones: ${dead}${unsure}`;
    if (!authed() && state.mode === "done") say("Confirmed. Log in with the table PIN to save it to the archive.");
  }
}

function addFixButton() {
  const b = document.createElement("button");
  b.type = "button"; b.id = "fix-again"; b.textContent = "Fix the stones";
  b.addEventListener("click", () => { state.mode = "fix"; state.count = null; say("Fix the stones, then count again."); show(); });
  $("count").parentElement.append(b);
}

// The komi field shows the rules' own komi; prisoners are asked for only where they count.
function rulesChanged() {
  const chosen = $("rules").selectedOptions[0];
  $("komi").placeholder = chosen.dataset.komi;
  $("prisoners").hidden = chosen.dataset.scoring !== "territory";
}

// ------------------------------------------------------------------ wiring
rulesChanged();
$("rules").addEventListener("change", rulesChanged);
// A photo chosen before this script ran (a slow phone) or kept by the browser on Back is read
// too, not silently ignored.
function photoChosen() {
  const file = $("photo").files[0];
  if (!file) return;
  if (state.url) URL.revokeObjectURL(state.url);
  state.file = file;
  state.url = URL.createObjectURL(file);
  state.reading = null; state.mode = "none"; state.count = null;
  state.placing = false; state.taps = []; state.corners = null; state.suggested = null;
  state.offered = false;
  $("preview").src = state.url;
  $("saved-note").hidden = true;
  show();
  readPhoto();
}
$("photo").addEventListener("change", photoChosen);
if ($("photo").files.length) photoChosen();
document.body.dataset.ready = "score";
$("reread").addEventListener("click", readPhoto);
$("place").addEventListener("click", startPlacing);
$("take").addEventListener("click", takeSuggested);
$("size").addEventListener("change", () => { if (state.file && !state.placing) readPhoto(); });
for (const id of ["rules", "komi", "prisoners-b", "prisoners-w"]) {
  $(id).addEventListener("change", () => {
    if (state.count && state.mode !== "fix") { state.mode = "dead"; recount(); }
  });
}
$("count").addEventListener("click", suggest);
$("confirm").addEventListener("click", () => { state.mode = "done"; say("Confirmed: this is the count."); show(); });
$("save").addEventListener("click", save);
$("marks").addEventListener("click", (e) => {
  if (state.placing) { placeTap(e); return; }
  const g = e.target.closest("[data-spot]");
  if (g) tap(Number(g.dataset.spot));
});
