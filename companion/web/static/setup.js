// Game setup: rules preset, knobs, players, time control, GoBeyond economy values.
import * as companion from "./common.js";

const form = document.getElementById("setup");

// Other rules: their usual board and players (FridgeGo's 9x9, GoBeyond's three on hex-5),
// unless the players' names were typed in here.
let namesTyped = false;
form.elements.players.addEventListener("input", () => { namesTyped = true; });
form.elements.rules.addEventListener("change", () => {
  const option = form.elements.rules.selectedOptions[0];
  if (!option) return;
  form.elements.topology.value = option.dataset.board;
  if (!namesTyped) form.elements.players.value = option.dataset.names;
});

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const f = e.target, out = document.getElementById("setup-result");
  const knobs = {};
  for (const k of ["komi", "stones", "starting", "handicap", "stone_cost", "dividend", "capture_bounty", "territory_bounty"]) {
    const v = f.elements[k].value.trim();
    if (v !== "") knobs[k] = Number(v);
  }
  if (f.elements.ko.value) knobs.ko = f.elements.ko.value;
  if (f.elements.handicap_stones.value.trim() !== "") {
    knobs.handicap_stones = Number(f.elements.handicap_stones.value);
    knobs.placement = f.elements.placement.value;
  }
  const players = f.elements.players.value.split("\n").map((s) => s.trim()).filter(Boolean);
  const body = { rules: f.elements.rules.value, topology: f.elements.topology.value.trim(), knobs, players, time_control: f.elements.time_control.value.trim() };
  const data = await companion.control("new_game", body);
  if (data.ok) { window.location.href = "/"; return; }
  out.className = "refusal"; out.textContent = data.error;
});
// Tests (and impatient fingers) act once this has run: before it, Start would reload the form.
document.body.dataset.ready = "setup";
