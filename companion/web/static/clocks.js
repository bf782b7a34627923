// Clock faces from a clock snapshot ({running, current, flagged, players: [{countdown, ...}]}),
// ticking the running face from the moment the snapshot arrived.
import { clockText } from "./format.js";

// Player p's face: {text, extra, running, low, none} (none: a game without a clock, whose
// face says so in small letters instead of a big dash). ``since`` is performance.now() at receipt;
// ``unit`` names what Canadian overtime counts ("stones" in Go, "turns" in chess).
export function clockFace(clock, p, since, unit = "stones") {
  if (!clock || !clock.players[p]) return { text: "no clock", extra: "", running: false, low: false, none: true };
  const f = clock.players[p];
  const running = clock.running && clock.current === p;
  const left = f.countdown - (running ? (performance.now() - since) / 1000 : 0);
  let text = clockText(left), extra = "";
  // Byo-yomi: periods left times their length ("3 x 30 s"), as the clock's own text says it.
  const periods = f.periods_text || (f.periods ? `${f.periods} periods` : "");
  if (f.overtime && f.periods) extra = `byo-yomi: ${periods}`;
  else if (f.overtime && f.stones) extra = `${f.stones} ${unit} to play`;
  else if (f.periods) extra = `then ${periods}`;
  if (clock.flagged === p) { text = "0:00"; extra = "time ran out"; }
  return { text, extra, running, low: left <= 10, none: false };
}
