// Controls are POSTs with the page's CSRF token; no secret in any URL.
import { localDates } from "./format.js";

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

// The kind of game this page draws (the server's KINDS entry, on the body's data-kind).
export function pageKind() { return document.body.dataset.kind || ""; }

// Whether the state is of a game this page does not draw (the table changed kind: reload
// to get that kind's page). A state with no game fits any page.
export function otherKind(s) { return s.phase !== "none" && !!s.kind && s.kind !== pageKind(); }

localDates();
