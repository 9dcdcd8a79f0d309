  // Where the step goes: per rank (horizontal stacked bars, sorted by compute, the slow rank in
  // red) and per step (vertical stacked bars). Parts: compute, communication not hidden behind
  // compute (and its wait part, where communication.json gives it), free time inside the step.
  var PARTS = [{key: "compute_ms", label: "compute", color: "#3949ab"},
               {key: "comm_ms", label: "communication", color: "#00897b"},
               {key: "wait_ms", label: "waiting in communication", color: "#ef6c00"},
               {key: "free_ms", label: "free", color: "#b0bec5"}];

  // A plot without data says why in one line instead of leaving an empty box on the page.
  function collapse(sectionId, sentence) {
    var sec = document.getElementById(sectionId);
    var h = sec.querySelector("h2");
    while (sec.lastChild && sec.lastChild !== h) sec.removeChild(sec.lastChild);
    sec.appendChild(el("div", {"class": "empty"}, sentence));
    sec.classList.add("absent");
  }

  function partLegend(host, parts) {
    parts.forEach(function (p) {
      var s = el("span"), i = el("i"); i.style.background = p.color;
      s.appendChild(i); s.appendChild(document.createTextNode(p.label)); host.appendChild(s);
    });
  }

  function barTitle(lines) { var t = svg("title"); t.textContent = lines.join("\n"); return t; }

  // Returns the number of rank bars drawn.
  function RankBreakdown(d) {
    var data = d.rank_breakdown;
    if (!data || !(data.ranks || []).length) {
      collapse("rank-breakdown", "No complete steps: nothing to break down per rank.");
      return 0;
    }
    var rows = data.ranks, note = "";
    // Thousands of ranks: the 64 with the most compute and the 64 with the least.
    if (rows.length > 128) {
      note = " (the 64 ranks with the most compute and the 64 with the least, of " + rows.length + ")";
      rows = rows.slice(0, 64).concat(rows.slice(rows.length - 64));
    }
    var hasWait = rows.some(function (r) { return r.wait_ms !== null && r.wait_ms !== undefined; });
    var parts = PARTS.filter(function (p) { return p.key !== "wait_ms" || hasWait; });
    var slow = rows.filter(function (r) { return r.slow; }).map(function (r) { return r.rank; });
    document.getElementById("rb-info").textContent = "mean complete step per rank, sorted by compute" + note +
        (slow.length ? "; slow rank " + slow.join(", ") + " in red" : "") +
        (hasWait ? "; wait: " + data.wait_source : "");
    partLegend(document.getElementById("rb-legend"), parts);
    var svgEl = document.getElementById("rank-breakdown-svg");
    var rowH = rows.length <= 16 ? 18 : rows.length <= 32 ? 14 : 10, L = 84, R = 90, T = 8, B = 28;
    var W = Math.max(svgEl.clientWidth || 900, 320), H = T + B + rowH * rows.length;
    var max = 0;
    rows.forEach(function (r) { max = Math.max(max, r.wall_ms); });
    if (max <= 0) max = 1;
    function X(v) { return L + v / max * (W - L - R); }
    svgEl.setAttribute("height", H);
    svgEl.setAttribute("viewBox", "0 0 " + W + " " + H);
    var axis = svg("g", {"class": "axis"}), step = niceStep(max);
    for (var v = 0; v <= max * 1.0001; v += step) {
      axis.appendChild(svg("line", {x1: X(v), x2: X(v), y1: T, y2: H - B}));
      var tx = svg("text", {x: X(v), y: H - B + 14, "text-anchor": "middle"}); tx.textContent = fmtNum(+v.toPrecision(6)) + " ms";
      axis.appendChild(tx);
    }
    svgEl.appendChild(axis);
    var drawn = 0;
    rows.forEach(function (r, i) {
      var y = T + i * rowH, x = L, g = svg("g", {"class": "rank-bar" + (r.slow ? " slow" : ""), "data-rank": r.rank});
      var label = svg("text", {x: L - 6, y: y + rowH * 0.8, "text-anchor": "end", "class": r.slow ? "slow-label" : "",
                               "font-size": rowH < 14 ? 9 : 11});
      label.textContent = "rank " + r.rank + (r.low_confidence ? " *" : "");
      g.appendChild(label);
      var lines = ["rank " + r.rank + (r.slow ? " (slow rank)" : "") + ": mean of " + r.steps + " complete step(s)",
                   "wall " + fmtNum(r.wall_ms) + " ms"];
      parts.forEach(function (p) {
        var v = r[p.key];
        if (v === null || v === undefined) return;
        lines.push(p.label + " " + fmtNum(v) + " ms (" + (r.wall_ms > 0 ? (100 * v / r.wall_ms).toFixed(1) : "0") + "%)");
        if (v <= 0) return;
        g.appendChild(svg("rect", {x: x, y: y + 1, width: Math.max(0.5, X(v) - L), height: rowH - 2, fill: p.color}));
        x += X(v) - L;
      });
      if (r.low_confidence) lines.push("* low confidence: this rank's kernel rows miss work");
      if (r.slow) g.appendChild(svg("rect", {x: L, y: y + 0.5, width: X(r.wall_ms) - L, height: rowH - 1, "class": "slow-outline"}));
      var val = svg("text", {x: X(r.wall_ms) + 4, y: y + rowH * 0.8, "font-size": rowH < 14 ? 9 : 11});
      val.textContent = fmtNum(r.wall_ms) + " ms";
      g.appendChild(val);
      g.appendChild(barTitle(lines));
      svgEl.appendChild(g);
      ++drawn;
    });
    return drawn;
  }

  // Returns the number of step bars drawn.
  function StepBreakdown(d) {
    var data = d.step_breakdown;
    if (!data || !(data.bars || []).length) {
      collapse("step-breakdown", "No complete steps: nothing to break down per step.");
      return 0;
    }
    var bars = data.bars, parts = PARTS.filter(function (p) { return p.key !== "wait_ms"; });
    document.getElementById("sb-info").textContent = "mean over the ranks of each step" +
        (data.grouped ? " (consecutive steps grouped into " + bars.length + " bars)" : "") + "; tick: the slowest rank's wall";
    partLegend(document.getElementById("sb-legend"), parts);
    var svgEl = document.getElementById("step-breakdown-svg");
    var W = Math.max(svgEl.clientWidth || 900, 320), H = 260, L = 64, R = 16, T = 10, B = 40;
    var max = 0;
    bars.forEach(function (b) { max = Math.max(max, b.wall_ms_max, b.wall_ms); });
    if (max <= 0) max = 1;
    var bw = Math.min((W - L - R) / bars.length, 72);  // a few steps: bars of a readable width, not the page's
    function Y(v) { return H - B - v / (max * 1.05) * (H - T - B); }
    svgEl.setAttribute("height", H);
    svgEl.setAttribute("viewBox", "0 0 " + W + " " + H);
    var axis = svg("g", {"class": "axis"}), step = niceStep(max);
    for (var v = 0; v <= max * 1.05; v += step) {
      axis.appendChild(svg("line", {x1: L, x2: W - R, y1: Y(v), y2: Y(v)}));
      var ty = svg("text", {x: L - 6, y: Y(v) + 4, "text-anchor": "end"}); ty.textContent = fmtNum(+v.toPrecision(6)) + " ms";
      axis.appendChild(ty);
    }
    var every = Math.max(1, Math.ceil(bars.length / 16));
    bars.forEach(function (b, i) {
      if (i % every) return;
      var tx = svg("text", {x: L + (i + 0.5) * bw, y: H - B + 14, "text-anchor": "middle"});
      tx.textContent = b.first_step === b.last_step ? String(b.first_step) : b.first_step + "-" + b.last_step;
      axis.appendChild(tx);
    });
    var cap = svg("text", {x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle"}); cap.textContent = "step";
    axis.appendChild(cap);
    svgEl.appendChild(axis);
    bars.forEach(function (b, i) {
      var g = svg("g", {"class": "step-bar", "data-step": b.first_step}), y = Y(0), x = L + i * bw + bw * 0.1;
      var lines = [(b.first_step === b.last_step ? "step " + b.first_step : "steps " + b.first_step + "-" + b.last_step) +
                   ", " + b.ranks + " rank(s)", "wall " + fmtNum(b.wall_ms) + " ms (slowest rank " + fmtNum(b.wall_ms_max) + " ms)"];
      parts.forEach(function (p) {
        var v = b[p.key] || 0;
        lines.push(p.label + " " + fmtNum(v) + " ms");
        if (v <= 0) return;
        var h = Y(0) - Y(v);
        g.appendChild(svg("rect", {x: x, y: y - h, width: Math.max(0.5, bw * 0.8), height: h, fill: p.color}));
        y -= h;
      });
      g.appendChild(svg("line", {x1: x, x2: x + Math.max(0.5, bw * 0.8), y1: Y(b.wall_ms_max), y2: Y(b.wall_ms_max), "class": "max-tick"}));
      g.appendChild(barTitle(lines));
      svgEl.appendChild(g);
    });
    return bars.length;
  }
