// Chess game setup: variant, traditional or custom setup file (read here, checked by the table).
import * as companion from "./common.js";
document.getElementById("chess-setup").addEventListener("submit", async (e) => {
  e.preventDefault();
  const f = e.target, out = document.getElementById("setup-result");
  const knobs = {};
  if (f.elements.start.value === "custom") {
    const file = f.elements.setup.files[0];
    if (!file) { out.className = "refusal"; out.textContent = "choose a setup file, or start from the traditional setup"; return; }
    if (file.size > 32 * 1024) { out.className = "refusal"; out.textContent = "that file is too big to be a setup (32 KB at most)"; return; }
    knobs.setup = await file.text();
  }
  const players = [f.elements.white.value.trim() || "White", f.elements.black.value.trim() || "Black"];
  const body = { rules: f.elements.rules.value, topology: knobs.setup ? "custom" : "8x8", knobs, players, time_control: f.elements.time_control.value.trim() };
  const data = await companion.control("new_game", body);
  if (data.ok) { window.location.href = "/"; return; }
  out.className = "refusal"; out.textContent = data.error;
});
document.body.dataset.ready = "chess-setup";
