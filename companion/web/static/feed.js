// The "What happened" list: each event as the words the server sent with it
// (companion/words.py words every event once, for every page and the log).
import { timeOfDay } from "./format.js";

export function eventWords(event) {
  return event.words || event.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

// Add ``event`` to ``list`` (newest first unless ``prepend`` is false), keeping ``max`` items.
export function addToFeed(list, event, { prepend = true, max = 30 } = {}) {
  if (event.type === "ClockSnapshot") return;
  const li = document.createElement("li");
  li.textContent = `${timeOfDay(event.at)} · ${eventWords(event)}`;
  if (prepend) list.insertBefore(li, list.firstChild); else list.appendChild(li);
  while (list.children.length > max) list.removeChild(list.lastChild);
}
