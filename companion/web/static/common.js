// Controls are POSTs with the page's CSRF token; no secret in any URL.
import { esc, localDates } from "./format.js";

export function csrf() { const m = document.querySelector('meta[name="csrf-token"]'); return m ? m.content : ""; }
export function authed() { const m = document.querySelector('meta[name="authed"]'); return !!m && m.content === "yes"; }

export async function post(url, body) {
  const resp = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
    body: JSON.stringify(body || {}),
  });
  let data = {};
  try { data = await resp.json(); } catch (e) { data = { ok: false, error: "the table did not answer (" + resp.status + ")" }; }
  return data;
}

export function control(action, body) { return post("/api/control/" + action, body); }

// Who resigns: a resignation names its player, not always the one to move (the sheets let
// either player resign at any time; a GoBeyond player resigns in cleanup). players is
// [{player, name}] of those who may; resolves to the chosen number, or null for Cancel.
export function whoResigns(players, toMove) {
  return new Promise((resolve) => {
    const box = document.createElement("dialog");
    box.className = "resign-choice";
    box.innerHTML = "<p>Who resigns?</p>" + players.map(({ player, name }) =>
      `<button data-player="${player}"${player === toMove ? " autofocus" : ""}>${esc(name)} resigns</button>`).join(" ") +
      ' <button data-player="">Cancel</button>';
    let chosen = null;
    box.addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b) return;
      chosen = b.dataset.player === "" ? null : parseInt(b.dataset.player, 10);
      box.close();
    });
    box.addEventListener("close", () => { box.remove(); resolve(chosen); });
    document.body.append(box);
    box.showModal();
  });
}

// The kind of game this page draws (the server's KINDS entry, on the body's data-kind).
export function pageKind() { return document.body.dataset.kind || ""; }

// Whether the state is of a game this page does not draw (the table changed kind: reload
// to get that kind's page). A state with no game fits any page.
export function otherKind(s) { return s.phase !== "none" && !!s.kind && s.kind !== pageKind(); }

localDates();
