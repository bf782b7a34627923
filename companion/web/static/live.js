// The live stream (Server-Sent Events) with catch-up: the browser resends the last event id
// when it reconnects, and the server replays what was missed from the journal. A page that
// wakes up (phone unlocked, laptop opened) nudges a stream that gave up.
export function liveStream(url, { onMessage, onStatus }) {
  let es = null;
  function connect() {
    es = new EventSource(url);
    es.onopen = () => onStatus(true);
    es.onerror = () => onStatus(false);
    es.onmessage = (msg) => {
      let data;
      try { data = JSON.parse(msg.data); } catch (e) { console.error(e); return; }
      onMessage(data);
    };
  }
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && es && es.readyState === EventSource.CLOSED) connect();
  });
  connect();
  return { close() { if (es) es.close(); } };
}

// What a page's status badge says about the stream.
export function showStatus(el, up, down = "reconnecting… (the page catches up by itself)") {
  el.textContent = up ? "live" : down;
  el.className = "status " + (up ? "live" : "down");
}
