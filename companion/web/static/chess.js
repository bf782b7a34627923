// The Beyond Chess table: the board with its rifts as SVG, clocks, captured pieces, the move
// list, the promotion question and the controls. Live over SSE like the Go table page.
import { CHESS_GLYPH as GLYPH, chessCellName, drawChessBoard } from "./chess_draw.js";
import { clockFace } from "./clocks.js";
import * as companion from "./common.js";
import { addToFeed } from "./feed.js";
import { esc } from "./format.js";
import { liveStream, showStatus } from "./live.js";

{
  const $ = (id) => document.getElementById(id);
  const NAMES = { Q: "queen", R: "rook", B: "bishop", N: "knight" };
  let state = null, clock = null, clockAt = 0;
  const authed = companion.authed();
  // A turn tapped on the page: the piece, where it goes, then the square to shift and where.
  let picked = [];
  function name(p) { return state && state.players && state.players[p] ? state.players[p].name : ["White", "Black"][p]; }
  // ---- the board (chess_draw.js draws it) -----------------------------------------------------
  function playing() { return !!state && state.phase === "play" && !state.over && !state.question && !state.paused; }
  function drawBoard() {
    drawChessBoard($("board"), state, { onCell: authed ? tapCell : null, picked });
    $("board").classList.toggle("tappable", authed && playing());
  }
  function pieceAt(x, y) { const p = state.board.pieces.find(([px, py]) => px === x && py === y); return p ? p[2] : null; }
  function squareAt(x, y) { return state.board.squares.some(([sx, sy]) => sx === x && sy === y); }
  function own(letter) { return letter && (letter === letter.toUpperCase()) === (state.to_move === 0); }
  function hint(text) { $("tap-hint").textContent = text; $("tap-hint").hidden = !text; }
  function tapCell(x, y) {
    if (!playing()) return;
    const letter = pieceAt(x, y);
    if (!picked.length || (picked.length === 1 && own(letter))) {
      if (!own(letter)) { hint(`tap one of ${name(state.to_move)}'s pieces first`); return; }
      picked = (picked.length && picked[0][0] === x && picked[0][1] === y) ? [] : [[x, y]];
      hint(picked.length ? "now tap where it goes" : "");
    } else if (picked.length === 1) {
      picked.push([x, y]);
      const pawn = pieceAt(...picked[0]).toLowerCase() === "p";
      if (pawn && !squareAt(x, y)) { submit(true); return; }  // a Geret: pawn and square together
      if (!state.needs_shift) { submit(false); return; }
      hint("now tap the empty square to shift");
    } else if (picked.length === 2) {
      picked.push([x, y]);
      hint("then tap where the square goes");
    } else {
      picked.push([x, y]);
      submit(false);
      return;
    }
    drawBoard();
  }
  async function submit(geret) {
    const [from, to, a, b] = picked.map(([x, y]) => chessCellName(x, y));
    let promo = "";
    const ty = picked[1][1];
    const letter = pieceAt(...picked[0]);
    const rows = state.board.promotion_rows || [];
    if (letter.toLowerCase() === "p" && ty === rows[state.to_move]) {
      const answer = (window.prompt("The pawn promotes: Q, R, B or N?", "Q") || "").trim().toUpperCase();
      if (!"QRBN".includes(answer) || !answer) { picked = []; hint(""); drawBoard(); return; }
      promo = "=" + answer;
    }
    const text = geret ? `G${from}${to}${promo}` : `${from}${to}${promo}` + (a ? `/${a}${b}` : "");
    picked = []; hint(""); drawBoard();
    await send("turn", { text });
  }

  // ---- the side panel -------------------------------------------------------------------------
  function renderClocks() {
    const box = $("clocks");
    if (!state || !state.players) { box.innerHTML = ""; return; }
    box.innerHTML = state.players.map((pl, p) => {
      const { text, extra, running, low, none } = clockFace(clock, p, clockAt, "turns");
      const turn = state.to_move === p && !state.over;
      const other = state.players[1 - p];
      const took = other.lost.map((l) => `<span class="${l === l.toUpperCase() ? "w" : "b"}">${GLYPH[l.toLowerCase()]}</span>`).join("");
      return `<div class="face p${p}${turn ? " turn" : ""}${running ? " running" : ""}${low ? " low" : ""}">
        <div class="who"><span class="dot ${p ? "b" : "w"}"></span>${esc(pl.name)}</div>
        <div class="digits${none ? " none" : ""}">${text}</div><div class="extra">${extra}</div>
        <div class="caps took" title="pieces ${esc(pl.name)} captured">${took || "&nbsp;"}</div></div>`;
    }).join("");
  }

  function renderMoves() {
    const rows = state.move_rows || [];
    const last = state.moves.length;
    $("moves").innerHTML = rows.length ? rows.map((r, i) => `<tr><th>${r.number}.</th><td>${esc(r.white)}</td><td>${esc(r.black)}</td></tr>`).join("")
      : `<tr><td class="muted">no turns yet</td></tr>`;
    const cells = $("moves").querySelectorAll("td");
    if (last && cells.length) {
      const filled = [...cells].filter((c) => c.textContent && c.textContent !== "…");
      if (filled.length) filled[filled.length - 1].className = "latest";
    }
    const box = $("moves").parentElement;
    box.scrollTop = box.scrollHeight;
  }

  function renderQuestion() {
    const box = $("question"), q = state.question;
    if (!q) { box.hidden = true; box.innerHTML = ""; return; }
    box.hidden = false;
    const white = q.player === 0;
    box.innerHTML = `<h2>${esc(name(q.player))}'s pawn promoted</h2><p>Which piece did it become? (The camera sees colours, not shapes.)</p>
      <div class="controls">${q.pieces.map((p) => `<button data-piece="${p}"><span class="glyph ${white ? "w" : "b"}">${GLYPH[p.toLowerCase()]}</span> ${NAMES[p]}</button>`).join("")}</div>`;
    box.querySelectorAll("button[data-piece]").forEach((b) => b.addEventListener("click", () => send("promote", { piece: b.dataset.piece })));
  }

  function render() {
    if (!state) return;
    const alerts = state.alerts || [];
    $("alerts").innerHTML = alerts.map((a) => `<p>${esc(a)}</p>`).join("");
    $("alerts").hidden = !alerts.length;
    if (state.phase === "none") { $("turn").textContent = "no game yet"; return; }
    drawBoard();
    let turn;
    if (state.result) {
      // "Bo wins (0-1)": the words for everyone, the score for the chess players.
      const said = state.result_words || state.result;
      const score = said !== state.result ? ` (${state.result})` : "";
      turn = `Game over: ${esc(said + score)} <div class="muted">${esc(state.result_method)}</div>`;
    }
    else {
      const p = state.to_move;
      turn = `<span class="dot ${p ? "b" : "w"}"></span>${esc(name(p))} to move${state.check ? " — check!" : ""}`;
      const last = state.last_move ? ` · ${esc(state.last_move.words)}` : "";
      turn += `<div class="muted">turn ${state.turn_number}${last}</div>`;
    }
    $("turn").innerHTML = turn;
    $("reader").textContent = state.reader || "";
    $("reader").className = "reader" + (state.half ? " waiting" : "");
    $("pause-btn").textContent = state.paused ? "Resume" : "Pause";
    $("pause-btn").dataset.action = state.paused ? "resume" : "pause";
    showControls();
    $("rules").textContent = state.rules_text + (state.time_control ? ` · clock ${state.time_control}` : " · no clock");
    renderClocks(); renderMoves(); renderQuestion();
  }

  // Controls only where they apply: none for spectators; once over, New game alone.
  function showControls() {
    const play = state.phase === "play" && !state.over;
    const show = (el, on) => { if (el) el.hidden = !on; };
    const button = (a) => document.querySelector(`#controls [data-action="${a}"]`);
    for (const a of ["clock", "draw", "resign"]) show(button(a), authed && play);
    show(button("undo"), authed && play && state.move_number > 0);
    show($("pause-btn"), authed && play && !!state.time_control);
    show($("new-game"), authed);
    show($("enter"), authed && play);
    show($("downloads"), !play && state.phase !== "none");
    if (!play && state.game_id) $("dl-record").href = `/archive/${state.game_id}.txt`;
    if (!play || !authed) { picked = []; hint(""); }
  }

  function feed(event) { addToFeed($("feed"), event); }

  function setState(s) {
    if (companion.otherKind(s)) { window.location.reload(); return; }  // the table changed kind
    state = s;
    if (s.clock !== undefined) { clock = s.clock; clockAt = performance.now(); }
    render();
  }

  async function send(action, body) {
    const box = $("refusal");
    const data = await companion.control(action, body);
    if (data.ok) { box.hidden = true; return true; }
    box.hidden = false; box.textContent = data.error;
    clearTimeout(send.timer); send.timer = setTimeout(() => { box.hidden = true; }, 8000);
    return false;
  }

  function onMessage(data) {
    if (data.recent) { $("feed").innerHTML = ""; data.recent.forEach(feed); }
    if (data.event) feed(data.event);
    if (data.state) setState(data.state);
    if (data.clock !== undefined && state) { clock = data.clock; clockAt = performance.now(); renderClocks(); }
  }

  document.querySelectorAll("#controls button[data-action]").forEach((b) =>
    b.addEventListener("click", async () => {
      const a = b.dataset.action;
      if (a === "resign") {
        const who = await companion.whoResigns([0, 1].map((p) => ({ player: p, name: name(p) })), state.to_move);
        if (who !== null) send("resign", { player: who });
        return;
      }
      if (a === "draw" && !confirm("Both players agree to a draw?")) return;
      send(a);
    }));
  $("enter").addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = e.target.elements.text;
    if (await send("turn", { text: input.value.trim() })) input.value = "";
  });
  setInterval(renderClocks, 250);
  fetch("/api/state", { credentials: "same-origin" }).then((r) => r.json()).then(setState);
  liveStream("/events", { onMessage, onStatus: (up) => showStatus($("status"), up) });
}
