// Step through a stored game move by move.
import { BoardView } from "./board.js";

(async function () {
  const root = document.getElementById("replay");
  const resp = await fetch("/api/archive/" + root.dataset.game, { credentials: "same-origin" });
  const data = await resp.json();
  const view = new BoardView(document.getElementById("board"), data.topology, null);
  const frames = data.frames, slider = document.getElementById("slider"), where = document.getElementById("where");
  document.getElementById("title").textContent = `Game ${data.game_id}: ${data.players.join(" – ")} (${data.rules})` + (data.result ? `: ${data.result_words || data.result}` : "");
  slider.max = String(frames.length - 1);
  let i = frames.length - 1;
  function show() {
    const f = frames[i];
    slider.value = String(i);
    view.update({ board: f.board, last_move: f.last, dead: f.dead });
    const last = f.last;
    let text = `move ${f.move_number}`;
    if (last) text += ` · ${last.words}`;
    if (f.text) text += ` · counted: ${f.words || f.text}`;
    text += ` · captures ${f.captures.join(" / ")}`;
    where.textContent = text;
  }
  const go = (n) => { i = Math.max(0, Math.min(frames.length - 1, n)); show(); };
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("prev").onclick = () => go(i - 1);
  document.getElementById("next").onclick = () => go(i + 1);
  document.getElementById("last").onclick = () => go(frames.length - 1);
  slider.oninput = () => go(parseInt(slider.value, 10));
  document.addEventListener("keydown", (e) => { if (e.key === "ArrowLeft") go(i - 1); if (e.key === "ArrowRight") go(i + 1); });
  show();
})();
