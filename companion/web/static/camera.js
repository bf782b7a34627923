// The camera page: after the page has loaded, show the latest annotated picture and refresh it
// while the source runs (a snapshot, not a stream, so the page's load event is never held);
// once the source ends its last picture stays, with the camera's note saying so.
const img = document.getElementById("camera-picture");
const wait = document.getElementById("camera-wait");
const note = document.getElementById("camera-note");
let shown = null;

async function tick() {
  let data = null;
  try {
    const resp = await fetch("/api/camera", { credentials: "same-origin", cache: "no-store" });
    data = await resp.json();
  } catch (e) {
    note.textContent = "the table does not answer; trying again";
  }
  if (data) {
    const said = data.note ? data.note[0].toUpperCase() + data.note.slice(1) : "";
    note.textContent = data.ended ? `${said}: this is its last picture.` : said;
    if (data.picture && data.frame !== shown) {
      const next = new Image();
      next.onload = () => { img.src = next.src; img.hidden = false; wait.hidden = true; };
      next.src = "/camera/frame.jpg?f=" + data.frame;
      shown = data.frame;
    }
    if (data.ended && shown !== null) return; // nothing more will come
  }
  setTimeout(tick, document.hidden ? 2000 : 500);
}

if (document.readyState === "complete") tick();
else window.addEventListener("load", tick);
