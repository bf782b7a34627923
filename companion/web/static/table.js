// The table view: SSE live updates (with Last-Event-ID catch-up), clocks, score, controls.
import { BoardView, COLOURS, LETTERS, playerColours, playerNames, swatch } from "./board.js";
import { clockFace } from "./clocks.js";
import * as companion from "./common.js";
import { addToFeed } from "./feed.js";
import { esc as escapeHtml } from "./format.js";
import { liveStream, showStatus } from "./live.js";

{
  const $ = (id) => document.getElementById(id);
  let view = null, state = null, gameId = null, clockAt = 0, clock = null;
  const authed = companion.authed();

  function name(p) { return state && state.players[p] ? state.players[p].name : LETTERS[p]; }
  function colours() { return state && state.players ? playerColours(playerNames(state.players)) : COLOURS; }
  function dot(p) { return swatch(colours()[p] || COLOURS[p]); }
  function playing() { return !!state && state.phase === "play" && !state.over && !state.result; }

  function renderClocks() {
    const box = $("clocks");
    if (!state || !state.players) { box.innerHTML = ""; return; }
    const faces = state.players.map((pl, p) => {
      const { text, extra, running, low, none } = clockFace(clock, p, clockAt);
      const turn = state.to_move === p && state.phase === "play" && !state.over;
      const live = state.points !== undefined;
      const pts = pl.points !== null && pl.points !== undefined ? ` · ${pl.points} points` : "";
      return `<div class="face p${p}${turn ? " turn" : ""}${running ? " running" : ""}${low ? " low" : ""}">
        <div class="who">${dot(p)}${escapeHtml(pl.name)}${pl.resigned ? " (resigned)" : ""}</div>
        <div class="digits${none ? " none" : ""}">${text}</div><div class="extra">${extra}</div>
        <div class="caps">captures ${pl.captures}${pl.prisoners !== pl.captures ? ` · prisoners ${pl.prisoners}` : ""}${pl.in_hand !== null ? ` · ${pl.in_hand} in hand` : ""}${pts}</div>
      </div>`;
    });
    box.innerHTML = faces.join("");
  }

  function renderScore() {
    const box = $("score"), s = state.score;
    if (!s) {
      // "Black wins by resignation", "a draw": the method only where the words do not say it
      // ("Black wins (first capture)").
      const said = state.result_words || state.result || "", how = state.result_method || "";
      const extra = how && !said.toLowerCase().includes(how.toLowerCase().slice(0, 4)) ? ` (${escapeHtml(how)})` : "";
      box.innerHTML = state.result ? `<div class="result">Result: ${escapeHtml(said)}${extra}</div>` : "";
      return;
    }
    const rows = s.points.map((pts, p) => {
      const d = s.detail[p] || {};
      const parts = Object.entries(d).filter(([, v]) => v).map(([k, v]) => `${v} ${k}`);
      // Area and territory totals are sums of their parts; GoBeyond's detail also names the
      // number of spots behind the territory bounty, so it is listed, not summed.
      const how = s.method === "economy" ? `(${parts.join(", ") || "nothing"})` : `= ${parts.join(" + ") || "0"}`;
      return `<tr><th>${escapeHtml(name(p))}</th><td class="num">${pts}</td><td class="how">${how}</td></tr>`;
    });
    const said = escapeHtml(s.words || s.text);
    const head = s.final ? `Result: <strong>${said}</strong>` : `If the game ended now: <strong>${said}</strong>`;
    box.innerHTML = `<div class="result">${head}</div><table class="count"><caption>counted by ${s.method}</caption>${rows.join("")}</table>`;
  }

  function renderChart() {
    const svg = $("chart"), hist = state.points_history || [];
    if (hist.length < 2) { svg.setAttribute("hidden", ""); return; }
    svg.removeAttribute("hidden");
    const n = hist.length, players = hist[0].length;
    let lo = Infinity, hi = -Infinity;
    hist.forEach((row) => row.forEach((v) => { lo = Math.min(lo, v); hi = Math.max(hi, v); }));
    if (hi === lo) hi = lo + 1;
    const W = 300, H = 120;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    let out = `<text x="4" y="12" class="axis">${hi}</text><text x="4" y="${H - 4}" class="axis">${lo}</text>`;
    for (let p = 0; p < players; p++) {
      const pts = hist.map((row, i) => `${(i / (n - 1)) * (W - 30) + 28},${H - 8 - ((row[p] - lo) / (hi - lo)) * (H - 20)}`);
      out += `<polyline fill="none" stroke="${colours()[p] || COLOURS[p]}" stroke-width="2.5" class="line p${p}" points="${pts.join(" ")}"/>`;
    }
    svg.innerHTML = `<title>points of each player over the game</title>` + out;
  }

  // The estimate's suggestion on the cleanup screen: what it marked and what it is unsure of.
  function suggestionText() {
    const sg = state.suggested;
    if (!sg) return state.suggesting ? `<p class="muted suggesting">Working out a suggestion…</p>` : "";
    const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
    let out = `<p class="suggestion">The estimate suggested ${n(sg.dead.length, "dead stone", "dead stones")} and ${n(sg.no_mans_land.length, "dame point", "dame points")} (${escapeHtml(sg.result_words || sg.result)} if confirmed): check them.</p>`;
    if (sg.borders_text) out += `<p class="borders-line">${escapeHtml(sg.borders_text)}</p>`;
    if (sg.unsure_groups.length) out += `<p class="unsure-line">these groups are unsure: ${sg.unsure_groups.map(escapeHtml).join(", ")} — check them</p>`;
    return out;
  }

  function renderCleanup() {
    const box = $("cleanup");
    if (state.phase !== "cleanup") { box.hidden = true; return; }
    box.hidden = false;
    const buttons = state.players.map((pl, p) => pl.resigned ? "" :
      `<button data-agree="${p}" ${pl.agreed ? "disabled" : ""}>${escapeHtml(pl.name)} ${pl.agreed ? "agreed ✓" : "agrees"}</button>`).join("");
    const how = authed
      ? "<p>Tap a group to mark it dead (tap again to bring it back); tap an empty point for no-man's-land. Then every player confirms.</p>"
      : "<p class=\"muted\">The players are marking the dead stones.</p>";
    const controls = authed
      ? `<div class="controls">${buttons}<button data-action="cancel_cleanup">Back to play</button>${state.rules === "club" ? `<button data-action="play_on" title="club rules: keep every pass and prisoner">Play on</button>` : ""}</div>`
      : "";
    box.innerHTML = `<h2>Cleanup</h2>${suggestionText()}${how}${controls}`;
    box.querySelectorAll("button[data-agree]").forEach((b) => b.addEventListener("click", () => send("agree", { player: parseInt(b.dataset.agree, 10) })));
    box.querySelectorAll("button[data-action]").forEach((b) => b.addEventListener("click", () => send(b.dataset.action)));
  }

  function render() {
    if (!state) return;
    const alerts = state.alerts || [], notices = state.notices || [];
    $("alerts").innerHTML = alerts.map((a) => `<p>${escapeHtml(a)}</p>`).join("") +
      notices.map((a) => `<p class="notice">${escapeHtml(a)}</p>`).join("");
    $("alerts").hidden = !alerts.length && !notices.length;
    if (state.phase === "none") { $("turn").textContent = "no game yet"; $("new-game").hidden = !authed; return; }
    if (view) view.update(state);
    const lastText = state.last_move ? state.last_move.words : "";
    let turn;
    if (state.result) turn = `Game over: ${escapeHtml(state.result_words || state.result)}`;
    else if (state.phase === "cleanup") turn = "Game over: counting";
    else turn = `${dot(state.to_move)}${escapeHtml(name(state.to_move))} to move`;
    $("turn").innerHTML = `${turn}<div class="muted">move ${state.move_number}${lastText ? " · " + escapeHtml(lastText) : ""}</div>`;
    $("pause-btn").textContent = state.paused ? "Resume" : "Pause";
    $("pause-btn").dataset.action = state.paused ? "resume" : "pause";
    showControls();
    $("rules").textContent = `${state.rules_text} · board ${state.topology_spec}` + (state.time_control ? ` · clock ${state.time_control}` : "");
    renderClocks(); renderScore(); renderChart(); renderCleanup(); refreshEstimate();
  }

  // Controls only where they apply: none for spectators but the estimate; during play the
  // moves (Skip where the rules have one, Pause with a clock); once over, New game and the
  // record's downloads.
  function showControls() {
    const play = playing(), cleanup = state.phase === "cleanup", over = !play && !cleanup;
    const show = (el, on) => { if (el) el.hidden = !on; };
    const button = (a) => document.querySelector(`#controls [data-action="${a}"]`);
    show(button("pass"), authed && play);
    show(button("skip"), authed && play && !!state.can_skip);
    show(button("undo"), authed && play && state.move_number > 0);
    show($("pause-btn"), authed && play && !!state.clock);
    show(button("resign"), authed && (play || cleanup));
    const counts = state.can_count !== false;
    show(button("cleanup"), authed && play && state.move_number > 0 && counts);
    show($("start-btn"), authed && play && !!(state.clock && state.clock.waiting) && !state.paused);
    show($("estimate-btn"), !over && counts);
    show($("new-game"), authed && (over || play));
    show($("tap-hint"), authed && play && state.move_number === 0);
    show($("downloads"), over && state.phase !== "none");
    if (over && state.game_id) {
      $("dl-sgf").href = `/archive/${state.game_id}.sgf`;
      $("dl-json").href = `/archive/${state.game_id}.json`;
    }
    $("board").classList.toggle("tappable", authed && (play || cleanup));
    if (over && estOn) $("estimate-btn").click();
  }

  // The Estimate button: read-only, so spectators may use it; the server computes each
  // position once. A second tap hides it; while shown it follows the game.
  let estOn = false, est = null, estAsked = null, estTimer = null;
  function showEstimateBox(html) { const box = $("estimate"); box.hidden = false; box.innerHTML = html; }
  async function fetchEstimate() {
    clearTimeout(estTimer);
    if (!estOn || !state || state.phase === "none") return;
    const asked = estAsked = `${state.game_id}:${state.move_number}`;
    let resp, data;
    try {
      resp = await fetch("/api/estimate", { credentials: "same-origin" });
      data = await resp.json();
    } catch (e) { data = { ok: false, error: "the table did not answer" }; resp = { status: 0 }; }
    if (!estOn || asked !== estAsked) return;
    if (resp.status === 202 || resp.status === 429) {
      if (!est) showEstimateBox(`<p class="muted">Estimating…</p>`);
      estTimer = setTimeout(fetchEstimate, 1000);
      return;
    }
    if (!data.ok) { showEstimateBox(`<p class="muted">${escapeHtml(data.error || "no estimate")}</p>`); return; }
    est = data;
    drawEstimate();
  }
  function drawEstimate() {
    if (!est || !view || !state) return;
    view.showEstimate(est, state.board);
    const unsure = est.unsure_groups.length
      ? `<p class="unsure-line">unsure: ${est.unsure_groups.map(escapeHtml).join(", ")} — check them</p>` : "";
    showEstimateBox(`<div class="headline">${escapeHtml(est.text)}</div>${unsure}
      <p class="muted">${est.playouts} playouts at move ${est.move_number}; shading: who ends up owning each point</p>`);
  }
  function refreshEstimate() {
    if (!estOn || !state) return;
    const now = `${state.game_id}:${state.move_number}`;
    if (est && `${est.game_id}:${est.move_number}` === now) { drawEstimate(); return; }
    if (est) { est = null; if (view) view.hideEstimate(); showEstimateBox(`<p class="muted">Estimating…</p>`); }
    if (estAsked !== now) fetchEstimate();
  }
  $("estimate-btn").addEventListener("click", () => {
    estOn = !estOn;
    $("estimate-btn").setAttribute("aria-pressed", String(estOn));
    if (estOn) { est = null; estAsked = null; fetchEstimate(); return; }
    clearTimeout(estTimer); est = null; estAsked = null;
    if (view) view.hideEstimate();
    $("estimate").hidden = true;
  });

  function feed(event) { addToFeed($("feed"), event); }

  // Events that arrive while a new board is being fetched wait for it (the feed follows the board).
  let loading = null, latest = null;
  const pending = [];
  function loadFull() {
    if (loading) return loading;
    loading = fetch("/api/state", { credentials: "same-origin" }).then((r) => r.json()).then((s) => {
      loading = null;
      setState(s);
      // A live state that came in during the fetch may be newer than what the fetch saw.
      const newer = latest;
      latest = null;
      if (newer && newer.game_id === s.game_id && newer.seq > s.seq) setState(newer);
      pending.splice(0).forEach(feed);
    }, () => { loading = null; });
    return loading;
  }

  function setState(s) {
    if (companion.otherKind(s)) { window.location.reload(); return; }  // the table changed kind
    if (s.topology) {
      view = new BoardView($("board"), s.topology, tap);
      gameId = s.game_id;
    } else if (s.game_id !== gameId || loading) {
      latest = s;
      loadFull(); return;
    }
    state = s;
    if (s.clock !== undefined) { clock = s.clock; clockAt = performance.now(); }
    render();
  }

  async function send(action, body) {
    const box = $("refusal");
    const data = await companion.control(action, body);
    if (data.ok) { box.hidden = true; return; }
    box.hidden = false; box.textContent = data.error;
    clearTimeout(send.timer); send.timer = setTimeout(() => { box.hidden = true; }, 8000);
  }

  // A tap on the board: mark a group in cleanup; in play, the stone of the player to move.
  function tap(spot) {
    if (!state || !authed) return;
    if (state.phase === "cleanup") send("mark", { spot });
    else if (playing()) send("play", { spot });
  }

  function onMessage(data) {
    if (data.state) setState(data.state);
    if (data.recent) { $("feed").innerHTML = ""; data.recent.forEach(feed); }
    if (data.event) { if (loading) pending.push(data.event); else feed(data.event); }
    if (data.clock !== undefined && state) { clock = data.clock; clockAt = performance.now(); renderClocks(); }
  }

  document.querySelectorAll("#controls button[data-action]").forEach((b) =>
    b.addEventListener("click", async () => {
      const a = b.dataset.action;
      if (a === "resign") {
        const can = state.players.map((pl, p) => ({ player: p, name: pl.name, out: pl.resigned })).filter((x) => !x.out);
        const who = await companion.whoResigns(can, state.phase === "cleanup" ? null : state.to_move);
        if (who !== null) send("resign", { player: who });
        return;
      }
      send(a);
    }));
  setInterval(renderClocks, 250);
  liveStream("/events", { onMessage, onStatus: (up) => showStatus($("status"), up) });
}
