// Shared formatting for every page: escaping text into HTML, clock times, dates.
export function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

// Seconds as a clock face shows them: 4:05, 1:02:03 (never negative, rounded up).
export function clockText(sec) {
  sec = Math.max(0, sec);
  const whole = Math.ceil(sec - 1e-6);
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
}

// An event's time (seconds since the epoch) as the reader's local time of day.
export function timeOfDay(at) { return new Date(at * 1000).toLocaleTimeString(); }

// <time data-epoch="..."> elements show the reader's local date and time.
export function localDates(root = document) {
  root.querySelectorAll("time[data-epoch]").forEach((t) => {
    t.textContent = new Date(parseFloat(t.dataset.epoch) * 1000).toLocaleString();
  });
}
