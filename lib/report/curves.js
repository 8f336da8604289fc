// Training curves, drawn alike in the one-file report and the dashboard (docs/metrics.md).
// Input: {series: [{entity, metric, rank, params: {NAME: VALUE}, points: [[step, value,
// seconds since the entity started or null], ...]}], goals: {METRIC: {target, at_least}},
// reported: how many entities reported (when only some are sent)}.
// Each metric gets a chart with one line per run (entity), coloured by the parameters that
// differ between the runs, with a legend; a run's ranks fold into their mean with a
// min-max band (each rank on demand). One bar of controls serves every chart of a
// container: x axis (step or wall-clock seconds), log scale, smoothing, ranks; a click on
// a legend item hides (or shows again) its runs in every chart, the axes fitting the rest. Plain
// SVG, no library: the report stays one file that opens offline.
const ssimCurves = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b", "#e377c2",
                   "#7f7f7f", "#bcbd22"];
  const MAX_RUNS = 40;
  // Shared by every container, and kept across the dashboard's refreshes.
  const options = {x: "step", log: false, smooth: 0, ranks: false, hidden: new Set()};  // hidden: legend labels

  function node(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function html(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function num(v) {
    if (v === 0) return "0";
    return Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3 ? v.toExponential(1) : String(+v.toPrecision(4));
  }
  // 1, 2, 5 x 10^k ticks covering [lo, hi].
  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / count, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw);
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return out;
  }
  function numeric(v) { return v !== "" && isFinite(Number(v)); }

  // The runs of one metric: an entity's ranks folded at each step into mean, min and max.
  function runsOf(series) {
    const byEntity = new Map();
    for (const s of series) {
      if (!byEntity.has(s.entity)) byEntity.set(s.entity, {name: s.entity, params: s.params || {}, ranks: []});
      byEntity.get(s.entity).ranks.push({rank: s.rank, points: s.points.filter(p => p[1] !== null)});
    }
    const runs = [...byEntity.values()];
    for (const run of runs) {
      const at = new Map();  // step -> [values], [times]
      for (const r of run.ranks)
        for (const [x, v, t] of r.points) {
          if (!at.has(x)) at.set(x, {v: [], t: []});
          at.get(x).v.push(v);
          if (t !== null && t !== undefined) at.get(x).t.push(t);
        }
      run.folded = [...at.entries()].sort((a, b) => a[0] - b[0]).map(([x, o]) => ({
        x, t: o.t.length ? o.t.reduce((a, b) => a + b, 0) / o.t.length : null,
        mean: o.v.reduce((a, b) => a + b, 0) / o.v.length, lo: Math.min(...o.v), hi: Math.max(...o.v)}));
    }
    return runs;
  }

  // What tells the runs apart: the parameters whose values differ (a port that is the same
  // for every member says nothing), numeric ones sorted as numbers.
  function keyOf(runs) {
    const names = new Set();
    for (const r of runs) for (const k in r.params) names.add(k);
    return [...names].filter(k => new Set(runs.map(r => r.params[k])).size > 1).sort();
  }
  function labelOf(run, key) {
    return key.length ? key.map(k => k + "=" + (run.params[k] === undefined ? "-" : run.params[k])).join(", ") : run.name;
  }
  function legendOrder(runs, key) {
    const labels = [...new Set(runs.map(r => labelOf(r, key)))];
    if (key.length === 1 && runs.every(r => numeric(r.params[key[0]])))
      labels.sort((a, b) => Number(a.split("=")[1]) - Number(b.split("=")[1]));
    return labels;
  }

  function smooth(values, weight) {  // TensorBoard's: an exponential moving average, debiased
    if (!weight) return values;
    let s = 0, n = 0;
    return values.map(v => { s = weight * s + (1 - weight) * v; n++; return s / (1 - Math.pow(weight, n)); });
  }

  function chart(metric, series, goal, reported, redraw) {
    const runs = runsOf(series).filter(r => r.folded.length);
    const listed = runs.slice(0, MAX_RUNS);
    const key = keyOf(runs), labels = legendOrder(listed, key);
    const visible = listed.filter(r => !options.hidden.has(labelOf(r, key)));
    const shown = visible.length ? visible : listed;  // every label hidden: an empty chart says nothing
    const colour = label => PALETTE[labels.indexOf(label) % PALETTE.length];
    const timed = shown.every(r => r.folded.every(p => p.t !== null));
    const byTime = options.x === "time" && timed;
    const xOf = p => byTime ? p.t : p.x;
    const positive = shown.every(r => r.folded.every(p => p.lo > 0)) && (!goal || goal.target > 0);
    const log = options.log && positive;
    const fy = v => log ? Math.log10(v) : v;

    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const r of shown)
      for (const p of r.folded) {
        x0 = Math.min(x0, xOf(p)); x1 = Math.max(x1, xOf(p));
        const lo = options.ranks || r.ranks.length > 1 ? p.lo : p.mean, hi = options.ranks || r.ranks.length > 1 ? p.hi : p.mean;
        y0 = Math.min(y0, fy(lo)); y1 = Math.max(y1, fy(hi));
      }
    if (goal) { y0 = Math.min(y0, fy(goal.target)); y1 = Math.max(y1, fy(goal.target)); }
    if (y1 === y0) { y0 -= 0.5; y1 += 0.5; }
    if (x1 === x0) { x0 -= 0.5; x1 += 0.5; }
    const W = 560, H = 250, L = 62, R = 12, T = 10, B = 38;
    const px = x => L + (x - x0) / (x1 - x0) * (W - L - R);
    const py = y => T + (y1 - fy(y)) / (y1 - y0) * (H - T - B);
    const svg = node("svg", {class: "curve", width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-metric": metric});

    // On a log scale: the powers of ten inside, or, within less than two of them, plain
    // ticks placed on the log scale.
    const decades = [];
    for (let d = Math.ceil(y0 - 1e-9); d <= y1 + 1e-9; d++) decades.push(Math.pow(10, d));
    const yTicks = !log ? ticks(y0, y1, 5) : decades.length >= 2 ? decades
                 : ticks(Math.pow(10, y0), Math.pow(10, y1), 4).filter(v => v > 0);
    for (const v of yTicks) {
      svg.appendChild(node("line", {x1: L, x2: W - R, y1: py(v), y2: py(v), class: "grid"}));
      svg.appendChild(node("text", {x: L - 5, y: py(v) + 4, "text-anchor": "end", class: "tick"}, num(v)));
    }
    for (const v of ticks(x0, x1, 6)) {
      svg.appendChild(node("line", {x1: px(v), x2: px(v), y1: H - B, y2: H - B + 4, class: "axisline"}));
      svg.appendChild(node("text", {x: px(v), y: H - B + 15, "text-anchor": "middle", class: "tick"}, num(v)));
    }
    svg.appendChild(node("line", {x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axisline"}));
    svg.appendChild(node("line", {x1: L, x2: L, y1: T, y2: H - B, class: "axisline"}));
    svg.appendChild(node("text", {x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle", class: "label"},
                         byTime ? "seconds since the run started" : "step"));
    svg.appendChild(node("text", {x: 12, y: (T + H - B) / 2, "text-anchor": "middle", class: "label",
                                  transform: `rotate(-90 12 ${(T + H - B) / 2})`}, metric + (log ? " (log)" : "")));

    const path = pts => pts.map((p, i) => (i ? "L" : "M") + px(p[0]).toFixed(1) + " " + py(p[1]).toFixed(1)).join(" ");
    for (const r of shown) {
      const label = labelOf(r, key), c = colour(label);
      const tip = (key.length ? label + " \u00b7 " : "") + r.name + ": last " + num(r.folded[r.folded.length - 1].mean) +
                  " at step " + r.folded[r.folded.length - 1].x + (r.ranks.length > 1 ? " (mean of " + r.ranks.length + " ranks)" : "");
      const g = node("g", {"data-run": r.name, "data-label": label, "data-count": r.folded.length});
      if (r.ranks.length > 1 && !options.ranks) {  // the band: min to max over the ranks
        const band = r.folded.map(p => [xOf(p), p.hi]).concat(r.folded.slice().reverse().map(p => [xOf(p), p.lo]));
        const area = node("path", {d: path(band) + " Z", fill: c, "fill-opacity": 0.15, stroke: "none", class: "band"});
        area.appendChild(node("title", {}, r.name + ": min to max over " + r.ranks.length + " ranks"));
        g.appendChild(area);
      }
      if (options.ranks && r.ranks.length > 1)
        for (const rank of r.ranks) {
          const pts = rank.points.map(p => [byTime ? p[2] : p[0], p[1]]).filter(p => p[0] !== null);
          const line = node("path", {d: path(pts), fill: "none", stroke: c, "stroke-width": 1, "stroke-opacity": 0.6,
                                     class: "rank", "data-rank": rank.rank});
          line.appendChild(node("title", {}, r.name + " rank " + rank.rank));
          g.appendChild(line);
        }
      const xs = r.folded.map(xOf), means = r.folded.map(p => p.mean);
      if (options.smooth > 0 && means.length > 2)  // the raw mean stays, faint, under its smoothed line
        g.appendChild(node("path", {d: path(xs.map((x, i) => [x, means[i]])), fill: "none", stroke: c, "stroke-width": 1,
                                    "stroke-opacity": 0.25, class: "raw"}));
      const smoothed = smooth(means, options.smooth);
      const mean = r.folded.length === 1
        ? node("circle", {cx: px(xs[0]), cy: py(means[0]), r: 3.5, fill: c, class: "mean"})
        : node("path", {d: path(xs.map((x, i) => [x, smoothed[i]])), fill: "none", stroke: c, "stroke-width": 2,
                        class: "mean"});
      mean.appendChild(node("title", {}, tip));
      g.appendChild(mean);
      svg.appendChild(g);
    }
    if (goal) {
      const y = py(goal.target);
      svg.appendChild(node("line", {x1: L, x2: W - R, y1: y, y2: y, class: "goal", "stroke-dasharray": "6 4"}));
      svg.appendChild(node("text", {x: W - R - 4, y: y - 4, "text-anchor": "end", class: "goal-label"},
                           "goal " + (goal.at_least ? "\u2265 " : "\u2264 ") + num(goal.target)));
    }

    const fig = html("figure", undefined, "curves-figure");
    fig.appendChild(svg);
    const legend = html("div", undefined, "legend");
    for (const label of labels) {
      const off = options.hidden.has(label) && visible.length > 0;
      const item = html("span", undefined, off ? "legend-item off" : "legend-item");
      item.setAttribute("role", "button");
      item.tabIndex = 0;
      item.title = off ? "show these runs again" : "hide these runs (the axes fit the rest)";
      item.onclick = item.onkeydown = ev => {
        if (ev.type === "keydown" && ev.key !== "Enter" && ev.key !== " ") return;
        if (options.hidden.has(label)) options.hidden.delete(label); else options.hidden.add(label);
        redraw();
      };
      const swatch = html("i");
      swatch.style.background = colour(label);
      item.appendChild(swatch);
      const runsOfLabel = listed.filter(r => labelOf(r, key) === label).length;  // replicas share a colour
      item.appendChild(document.createTextNode(label + (key.length && runsOfLabel > 1 ? " (" + runsOfLabel + " runs)" : "")));
      legend.appendChild(item);
    }
    fig.appendChild(legend);
    const notes = [];
    const total = Math.max(runs.length, reported || 0);  // the report sends the first MAX_RUNS only
    if (total > listed.length) notes.push(listed.length + " of " + total + " runs drawn");
    if (shown.length < listed.length) notes.push((listed.length - shown.length) + " hidden (click the legend)");
    if (options.x === "time" && !timed) notes.push("no times for some points (printed lines): against the step");
    if (options.log && !positive) notes.push("values \u2264 0: linear scale");
    if (shown.some(r => r.ranks.length > 1)) notes.push(options.ranks ? "every rank" : "mean of the ranks, band from min to max");
    fig.appendChild(html("figcaption", metric + (notes.length ? " \u00b7 " + notes.join(" \u00b7 ") : "")));
    return fig;
  }

  function controls(container, redraw) {
    const bar = html("div", undefined, "curve-controls");
    const x = html("select");
    for (const [v, t] of [["step", "x: step"], ["time", "x: wall-clock seconds"]]) {
      const o = html("option", t); o.value = v; o.selected = options.x === v; x.appendChild(o);
    }
    x.onchange = () => { options.x = x.value; redraw(); };
    const box = (text, name) => {
      const l = html("label"), c = html("input");
      c.type = "checkbox"; c.checked = options[name]; c.name = name;
      c.onchange = () => { options[name] = c.checked; redraw(); };
      l.appendChild(c); l.appendChild(document.createTextNode(" " + text));
      return l;
    };
    const s = html("label", "smoothing "), range = html("input");
    range.type = "range"; range.min = 0; range.max = 0.95; range.step = 0.05; range.value = options.smooth; range.name = "smooth";
    range.oninput = () => { options.smooth = Number(range.value); redraw(); };
    s.appendChild(range);
    bar.append(x, box("log scale", "log"), s, box("each rank", "ranks"));
    return bar;
  }

  // Draws `doc` into `container` (emptied first): the controls, then a chart per metric.
  function render(container, doc) {
    const draw = () => {
      container.textContent = "";
      const byMetric = new Map();
      for (const s of doc.series) (byMetric.get(s.metric) || byMetric.set(s.metric, []).get(s.metric)).push(s);
      if (!byMetric.size) return;
      container.appendChild(controls(container, draw));
      const grid = html("div", undefined, "curves-grid");
      for (const [metric, series] of byMetric) grid.appendChild(chart(metric, series, (doc.goals || {})[metric], doc.reported, draw));
      container.appendChild(grid);
    };
    draw();
  }

  const style = `.curve-controls{display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;font-size:13px;margin:6px 0}
.curves-grid{display:flex;flex-wrap:wrap;gap:12px}.curves-figure{margin:0;flex:1 1 420px;max-width:560px}
svg.curve{background:#fff;border:1px solid #e0e0e0;width:100%;height:auto}svg.curve .grid{stroke:#eee}svg.curve .axisline{stroke:#999}
svg.curve .tick{font-size:11px;fill:#555}svg.curve .label{font-size:12px;fill:#333}
svg.curve .goal{stroke:#333;stroke-width:1.2}svg.curve .goal-label{font-size:11px;fill:#333}
.legend{display:flex;flex-wrap:wrap;gap:4px 12px;font-size:12px;margin:4px 0 0 8px}
.legend-item{cursor:pointer;user-select:none}.legend-item.off{opacity:.35;text-decoration:line-through}
.legend-item i{display:inline-block;width:14px;height:3px;margin-right:5px;vertical-align:middle}
.curves-figure figcaption{font-size:12px;color:#555;margin-left:8px}`;

  return {render, options, style};
})();
