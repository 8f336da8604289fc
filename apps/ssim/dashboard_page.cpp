// The dashboard's one page: plain HTML, CSS and JavaScript, nothing fetched but its own
// API. It polls /api/status every 2 s (the live table and counts), /api/experiments
// every 10 s (the side list), follows a chosen entity's log like `ssim logs -f`, and
// shows the full report below, reloaded when the experiment changes (at most every
// 10 s). Text from experiments goes in with textContent only.
#include "apps/ssim/dashboard_routes.hpp"

namespace ssim::app {

const std::string& dashboard_page() {
  static const std::string page = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ssim dashboard</title>
<meta name="referrer" content="no-referrer">
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; display: flex; color: #222; }
nav { width: 260px; min-height: 100vh; background: #f4f5f7; border-right: 1px solid #ddd; padding: 12px; box-sizing: border-box; }
nav h1 { font-size: 16px; margin: 0 0 10px; } nav a { display: block; padding: 6px 8px; border-radius: 6px;
  color: inherit; text-decoration: none; margin-bottom: 2px; } nav a.on { background: #dde6f5; }
nav small { display: block; color: #666; }
main { flex: 1; padding: 16px 24px; min-width: 0; }
h2 { margin: 0 0 4px; font-size: 20px; } .quiet { color: #666; }
.chips span { display: inline-block; padding: 2px 10px; margin: 6px 6px 6px 0; border-radius: 12px; color: #fff; font-weight: 600; }
table { border-collapse: collapse; font-size: 13px; width: 100%; } td, th { text-align: left; padding: 2px 10px 2px 0; border-bottom: 1px solid #eee; }
tr.entity { cursor: pointer; } tr.entity:hover { background: #f3f7ff; }
.s-completed { color: #2e7d32; } .s-failed { color: #c62828; } .s-running { color: #1565c0; }
.s-pending { color: #b07d00; } .s-cancelled { color: #777; }
#log { background: #111; color: #ddd; padding: 8px; height: 220px; overflow: auto; font: 12px monospace; white-space: pre-wrap; display: none; }
iframe { width: 100%; height: 900px; border: 1px solid #ddd; margin-top: 12px; }
input { padding: 3px 6px; }
</style></head><body>
<nav><h1>ssim dashboard</h1><div id="experiments"></div></nav>
<main>
<h2 id="title">ssim</h2><div class="quiet" id="where"></div>
<div class="chips" id="chips"></div>
<p><input id="filter" placeholder="filter by name or status"> <span class="quiet" id="updated"></span>
 <a id="reportlink" target="_blank" rel="noreferrer">full report</a></p>
<table><thead><tr><th>name</th><th>status</th><th>exit</th><th>elapsed</th><th>nodes</th><th>params</th><th>note</th></tr></thead>
<tbody id="entities"></tbody></table>
<h3 id="logtitle">Log <span class="quiet">(click an entity)</span></h3>
<label><input type="checkbox" id="stderr"> stderr</label>
<div id="log"></div>
<iframe id="report" title="report"></iframe>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const colours = {completed: "#2e7d32", failed: "#c62828", cancelled: "#8d8d8d", running: "#1565c0", pending: "#f2a900", new: "#9e9e9e"};
let current = decodeURIComponent((location.hash.match(/exp=([^&]*)/) || [])[1] || "");
let lastSignature = "", lastReport = 0, follow = null;

function api(path, params) {
  const q = new URLSearchParams(Object.assign({token: token}, params || {}));
  return fetch(path + "?" + q.toString(), {cache: "no-store"}).then(r => { if (!r.ok) throw new Error(r.status); return r; });
}
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
function clock(s) { if (s === null || s < 0) return "-"; s = Math.floor(s); const p = n => String(n).padStart(2, "0");
  const d = Math.floor(s / 86400); return (d ? d + "-" : "") + p(Math.floor(s % 86400 / 3600)) + ":" + p(Math.floor(s % 3600 / 60)) + ":" + p(s % 60); }

function experiments() {
  api("/api/experiments").then(r => r.json()).then(list => {
    const box = document.getElementById("experiments"); box.textContent = "";
    if (!current && list.length) current = list[0].path;
    for (const x of list) {
      const a = el("a", x.name || x.path); a.href = "#exp=" + encodeURIComponent(x.path);
      if (x.path === current) a.className = "on";
      a.appendChild(el("small", x.outcome + " \u00b7 " + x.path));
      a.onclick = () => { current = x.path; lastSignature = ""; stopFollow(); experiments(); status(); };
      box.appendChild(a);
    }
    status();
  }).catch(() => {});
}

function status() {
  if (!current) return;
  api("/api/status", {exp: current}).then(r => r.json()).then(doc => {
    document.getElementById("title").textContent = doc.experiment;
    document.getElementById("where").textContent = doc.path + " \u00b7 " + doc.launcher + " \u00b7 " + (doc.running ? "running" : doc.finished ? "finished" : "not running");
    document.getElementById("reportlink").href = "/report?" + new URLSearchParams({exp: current, token: token});
    const counts = {};
    for (const e of doc.entities) if (e.type !== "database") counts[e.status] = (counts[e.status] || 0) + 1;
    const chips = document.getElementById("chips"); chips.textContent = "";
    for (const [s, n] of Object.entries(counts)) { const c = el("span", n + " " + s); c.style.background = colours[s] || "#999"; chips.appendChild(c); }
    const f = document.getElementById("filter").value.toLowerCase();
    const body = document.getElementById("entities"); body.textContent = "";
    for (const e of doc.entities) {
      if (f && !(e.name.toLowerCase().includes(f) || e.status.includes(f))) continue;
      const tr = el("tr", undefined, "entity"); tr.dataset.name = e.name;
      const params = Object.entries(e.params || {}).map(([k, v]) => k + "=" + v).join(",");
      const elapsed = e.start > 0 ? ((e.end > 0 ? e.end : Date.now() / 1000) - e.start) : -1;
      for (const [text, cls] of [[e.name], [e.status, "s-" + e.status], [e.signal || (e.exit_code ?? "-")],
                                 [clock(elapsed)], [e.nodes || "-"], [params || "-"], [e.status === "completed" ? "" : e.reason]])
        tr.appendChild(el("td", String(text), cls));
      tr.onclick = () => startFollow(e.name);
      body.appendChild(tr);
    }
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
    const signature = doc.entities.map(e => e.name + e.status).join();
    const now = Date.now();
    if (signature !== lastSignature && now - lastReport > 10000 || !lastSignature) {
      lastSignature = signature; lastReport = now;
      document.getElementById("report").src = "/report?" + new URLSearchParams({exp: current, token: token});
    }
  }).catch(() => {});
}

function stopFollow() { if (follow) clearTimeout(follow.timer); follow = null; }
function startFollow(name) {
  stopFollow();
  const stream = document.getElementById("stderr").checked ? "err" : "out";
  follow = {name: name, stream: stream, offset: 0, timer: null};
  const log = document.getElementById("log"); log.textContent = ""; log.style.display = "block";
  document.getElementById("logtitle").textContent = "Log of " + name + " (" + (stream === "err" ? "stderr" : "stdout") + ")";
  const me = follow;
  const step = () => api("/api/logs", {exp: current, entity: name, stream: stream, offset: me.offset})
    .then(r => r.json()).then(d => {
      if (follow !== me) return;
      if (d.data) { log.textContent += d.data; log.scrollTop = log.scrollHeight; }
      me.offset = d.offset;
      if (!d.ended || d.data) me.timer = setTimeout(step, 1000);
    }).catch(() => {});
  step();
}
document.getElementById("stderr").onchange = () => { if (follow) startFollow(follow.name); };
document.getElementById("filter").oninput = status;
experiments();
setInterval(status, 2000);
setInterval(experiments, 10000);
</script></body></html>
)HTML";
  return page;
}

}  // namespace ssim::app
