// Shared helpers: controls are POSTs with the page's CSRF token; no secret in any URL.
"use strict";
const companion = {
  csrf() { const m = document.querySelector('meta[name="csrf-token"]'); return m ? m.content : ""; },
  authed() { const m = document.querySelector('meta[name="authed"]'); return m && m.content === "yes"; },
  control(action, body) { return companion.post("/api/control/" + action, body); },
  async post(url, body) {
    const resp = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": companion.csrf() },
      body: JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { ok: false, error: "the table did not answer (" + resp.status + ")" }; }
    return data;
  },
};
document.querySelectorAll("time[data-epoch]").forEach((t) => {
  t.textContent = new Date(parseFloat(t.dataset.epoch) * 1000).toLocaleString();
});
