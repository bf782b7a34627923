// The hub page: every table's board, clocks, result and alerts, live over SSE. Read-only.
// The board drawing, formatting, feed and live stream are the table page's own modules.
import { BoardView, LETTERS } from "../web-static/board.js";
import { CHESS_GLYPH, drawChessBoard } from "../web-static/chess_draw.js";
import { addToFeed } from "../web-static/feed.js";
import { clockText, esc } from "../web-static/format.js";
import { liveStream, showStatus } from "../web-static/live.js";

const hub = {
  tables: new Map(), // name -> {view, ref (hub seconds at receipt), t (performance.now at receipt)}

  esc,
  fmt: clockText,

  // Seconds left on player p's clock now, ticking the running face from the snapshot's time.
  left(entry, p) {
    const c = entry.view.clock;
    if (!c || !c.players[p]) return null;
    let left = c.players[p].countdown;
    if (c.running && c.current === p) {
      const atReceipt = Math.max(0, entry.ref - (c.as_of || entry.ref));
      left -= atReceipt + (performance.now() - entry.t) / 1000;
    }
    return c.flagged === p ? 0 : left;
  },

  store(view, ref) {
    const entry = { view, ref, t: performance.now() };
    hub.tables.set(view.table, entry);
    return entry;
  },

  rounds(list) {
    const nav = document.getElementById("rounds");
    if (!nav) return;
    nav.innerHTML = (list || []).map((r) => `<a href="/round/${r}/records.zip" download>Round ${r} records</a>`).join("") +
      `<a href="/broadcast/tournament.json">Broadcast files</a>`;
  },

  // The hub's own reading of the broker: following or not (and why), messages refused, and
  // whether the tables' signatures are checked.
  broker(data) {
    const el = document.getElementById("broker");
    if (!el) return;
    const parts = [data.following ? "following the tables" : (data.receiver || "not following")];
    if (data.refused) parts.push(`${data.refused} message${data.refused === 1 ? "" : "s"} refused`);
    if (data.signed === false) parts.push("unsigned: anyone on the network can post");
    el.textContent = parts.join(" · ");
    el.classList.toggle("warn", !data.following);
  },

  result(v) {
    if (v.phase === "none") return "no game yet";
    if (v.result) return "Result " + (v.result_words || v.result);
    if (v.phase === "cleanup") return "counting";
    const word = hub.isChess(v) ? (v.check ? "check! turn" : "turn") : "move";
    return `${word} ${v.move_number}` + (v.last_move ? " · " + v.last_move.words : "");
  },

  // A Beyond Chess table (its view carries the board; chess_draw.js draws it).
  isChess(v) { return v.kind === "chess"; },

  // The player's colour dot: Go's player 0 is Black, chess's player 0 is White.
  dot(v, p) { return hub.isChess(v) ? (p ? "b" : "w") : "c" + p; },

  // The pieces player p took (the other player's losses), as glyphs.
  took(v, p) {
    const other = v.players && v.players[1 - p];
    return ((other && other.lost) || []).map((l) => `<span class="${l === l.toUpperCase() ? "w" : "b"}">${CHESS_GLYPH[l.toLowerCase()]}</span>`).join("");
  },

  // Say within 10 s when the hub stops following (the stream alone would go quiet).
  watchReceiver() {
    setInterval(() => {
      fetch("/api/receiver").then((r) => r.json()).then(hub.broker).catch(() => {});
    }, 10000);
  },

  stream(query, onMessage, onState) {
    return liveStream("/stream" + query, {
      onMessage: (data) => { try { onMessage(data); } catch (e) { console.error(e); } },
      onStatus: onState,
    });
  },
};

// ------------------------------------------------------------------ every table
function hubTables() {
  const box = document.getElementById("tables");
  const boards = new Map(); // name -> {game, view: BoardView}

  function card(name) {
    let el = document.getElementById("card-" + name);
    if (!el) {
      el = document.createElement("a");
      el.className = "tcard"; el.id = "card-" + name; el.href = "/table/" + encodeURIComponent(name);
      el.innerHTML = `<h2><span class="online"></span><span class="nm"></span><span class="round"></span></h2>
        <svg class="board" role="img"></svg><div class="faces"></div><div class="line"><span class="res"></span></div><div class="al"></div>`;
      el.querySelector(".nm").textContent = name;
      const names = [...hub.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      const next = names.slice(names.indexOf(name) + 1).map((n) => document.getElementById("card-" + n)).find(Boolean);
      box.insertBefore(el, next || null);
    }
    return el;
  }

  function draw(name, view) {
    const el = card(name);
    const svg = el.querySelector("svg");
    let b = boards.get(name);
    svg.classList.toggle("chess-board", hub.isChess(view));
    if (hub.isChess(view)) {
      if (view.board) drawChessBoard(svg, view, { coords: false });
      b = { game: view.game_id, chess: true };
      boards.set(name, b);
      return b;
    }
    if (view.topology && (!b || b.game !== view.game_id || b.chess)) {
      b = { game: view.game_id, view: new BoardView(svg, view.topology, null) };
      boards.set(name, b);
    }
    if (b && b.game === view.game_id && view.board) b.view.update(view);
    return b;
  }

  function render(name) {
    const entry = hub.tables.get(name), v = entry.view, el = card(name);
    el.querySelector(".online").className = "online" + (v.online ? " yes" : "");
    el.querySelector(".round").textContent = "round " + v.round;
    el.classList.toggle("off", v.online === false);
    el.classList.toggle("alerting", (v.alerts || []).length > 0);
    el.querySelector(".faces").innerHTML = (v.players || []).map((pl, p) => {
      const left = hub.left(entry, p);
      const turn = v.to_move === p && v.phase === "play" && !v.over;
      return `<div class="line"><span><span class="dot ${hub.dot(v, p)}"></span>${hub.esc(pl.name)}</span>
        <span class="face-s${turn ? " turn" : ""}${left !== null && left <= 10 ? " low" : ""}">${left === null ? "" : hub.fmt(left)}</span></div>`;
    }).join("");
    el.querySelector(".res").textContent = hub.result(v);
    el.querySelector(".al").innerHTML = (v.alerts || []).map((a) => `<div>${hub.esc(a)}</div>`).join("");
  }

  async function load() {
    const resp = await fetch("/api/tables");
    const data = await resp.json();
    hub.rounds(data.rounds); hub.broker(data);
    for (const v of data.tables) { hub.store(v, data.server_time); draw(v.table, v); render(v.table); }
    document.getElementById("empty").hidden = data.tables.length > 0;
  }

  async function refetch(name) {
    const resp = await fetch("/api/table/" + encodeURIComponent(name));
    if (!resp.ok) return;
    const data = await resp.json();
    hub.store(data.view, data.server_time); draw(name, data.view); render(name);
  }

  hub.stream("", (msg) => {
    if (msg.kind === "hello") return;
    if (msg.kind === "record") { fetch("/api/tables").then((r) => r.json()).then((d) => hub.rounds(d.rounds)); return; }
    const v = msg.view; if (!v) return;
    const b = boards.get(msg.table);
    hub.store(v, msg.sent);
    document.getElementById("empty").hidden = true;
    if (!b || b.game !== v.game_id) { card(msg.table); refetch(msg.table); return; }
    draw(msg.table, v); render(msg.table);
  }, (up) => { if (up) load(); });
  setInterval(() => { for (const name of hub.tables.keys()) render(name); }, 1000);
}

// ------------------------------------------------------------------ one table
function hubTable(name) {
  const $ = (id) => document.getElementById(id);
  let board = null, game = null;

  function who(v, p) { return v.players && v.players[p] ? v.players[p].name : LETTERS[p]; }

  function feed(v, e, prepend) { addToFeed($("feed"), e, { prepend, max: 200 }); }

  // A chess table's board and move list (drawn when its view changes, not every second).
  function drawChess(v) {
    const chess = hub.isChess(v);
    $("board").classList.toggle("chess-board", chess);
    $("moves-box").hidden = !chess;
    if (!chess) return;
    board = null; game = v.game_id;
    if (v.board) drawChessBoard($("board"), v);
    const rows = v.move_rows || [];
    $("moves").innerHTML = rows.length ? rows.map((r) => `<tr><th>${r.number}.</th><td>${hub.esc(r.white)}</td><td>${hub.esc(r.black)}</td></tr>`).join("")
      : `<tr><td class="muted">no turns yet</td></tr>`;
    $("moves-box").scrollTop = $("moves-box").scrollHeight;
  }

  function render() {
    const entry = hub.tables.get(name); if (!entry) return;
    const v = entry.view;
    $("alerts").innerHTML = (v.alerts || []).map((a) => `<p>${hub.esc(a)}</p>`).join("");
    $("round").textContent = "round " + v.round;
    if (board && v.board) board.update(v);
    $("clocks").innerHTML = (v.players || []).map((pl, p) => {
      const left = hub.left(entry, p);
      const turn = v.to_move === p && v.phase === "play" && !v.over;
      const caps = hub.isChess(v) ? `<div class="caps took">${hub.took(v, p) || "&nbsp;"}</div>`
        : `<div class="caps">captures ${pl.captures}${pl.points !== null && pl.points !== undefined ? ` · ${pl.points} points` : ""}</div>`;
      return `<div class="face p${p}${turn ? " turn" : ""}${left !== null && left <= 10 ? " low" : ""}">
        <div class="who"><span class="dot ${hub.dot(v, p)}"></span>${hub.esc(pl.name)}${pl.resigned ? " (resigned)" : ""}</div>
        <div class="digits">${left === null ? "—" : hub.fmt(left)}</div>${caps}</div>`;
    }).join("");
    // "Bo wins (0-1) · checkmate": the words for everyone, the score for chess players.
    const said = v.result_words || v.result;
    const score = v.result && said !== v.result && hub.isChess(v) ? ` (${v.result})` : "";
    const method = v.result && v.result_method && hub.isChess(v) ? ` · ${v.result_method}` : "";
    $("turn").textContent = v.result ? `Game over: ${said}${score}${method}` : v.phase === "play" ? `${who(v, v.to_move)} to move · ${hub.result(v)}` : hub.result(v);
    $("rules").textContent = v.rules_text ? `${v.rules_text} · board ${v.topology_spec}` + (v.time_control ? ` · clock ${v.time_control}` : "") : "";
  }

  async function load() {
    const resp = await fetch("/api/table/" + encodeURIComponent(name));
    if (!resp.ok) return;
    const data = await resp.json();
    const v = data.view;
    hub.store(v, data.server_time); hub.broker(data); hub.rounds(data.rounds);
    drawChess(v);
    if (!hub.isChess(v) && v.topology && game !== v.game_id) { board = new BoardView($("board"), v.topology, null); game = v.game_id; }
    $("feed").innerHTML = "";
    for (const e of data.events.slice().reverse()) feed(v, e, false);
    render();
  }

  hub.stream("?table=" + encodeURIComponent(name), (msg) => {
    if (msg.kind === "hello" || !msg.view) return;
    const old = hub.tables.get(name);
    if (msg.view.game_id !== game || msg.kind === "state") { load(); return; }
    msg.view.topology = old && old.view.topology;
    hub.store(msg.view, msg.sent);
    if (msg.event) feed(msg.view, msg.event, true);
    drawChess(msg.view);
    render();
  }, (up) => { showStatus($("status"), up, "reconnecting…"); if (up) load(); });
  setInterval(render, 1000);
}

// Which page this is: every table, or one (its name in the body's data-table).
const page = document.body.dataset;
if (page.hubPage) hub.watchReceiver();
if (page.hubPage === "tables") hubTables();
else if (page.hubPage === "table") hubTable(page.table);
