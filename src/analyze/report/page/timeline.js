  // Zoomable per-rank step timeline: an SVG redrawn from a view window [v0, v1] (us).
  function Timeline(d) {
    var tl = d.timeline || {ranks: []};
    var ranks = tl.ranks || [];
    var svgEl = document.getElementById("timeline-svg");
    var tip = document.getElementById("tl-tip");
    var laneH = 28, laneGap = 8, left = 70, top = 24, right = 12;
    var t0 = Infinity, t1 = -Infinity;
    var classes = {};
    ranks.forEach(function (r) {
      (r.steps || []).forEach(function (s) {
        t0 = Math.min(t0, s.start_us); t1 = Math.max(t1, s.end_us);
        if (s.class_id !== undefined && !(s.class_id in classes)) classes[s.class_id] = Object.keys(classes).length;
      });
    });
    if (!isFinite(t0)) { t0 = 0; t1 = 1; }
    if (t1 <= t0) t1 = t0 + 1;
    var v0 = t0, v1 = t1, active = null;
    var height = top + ranks.length * (laneH + laneGap) + 6;
    svgEl.setAttribute("height", Math.max(height, 60));
    var findingMarks = [];
    (d.findings || []).forEach(function (f) {
      (f.evidence || []).forEach(function (ev) { if (ev.kind === "window") findingMarks.push({f: f.id, ev: ev}); });
    });
    var legend = document.getElementById("tl-legend");
    Object.keys(classes).slice(0, 8).forEach(function (c) {
      var s = el("span"); var i = el("i"); i.style.background = PALETTE[classes[c] % PALETTE.length];
      s.appendChild(i); s.appendChild(document.createTextNode("step class " + c)); legend.appendChild(s);
    });
    var gs = el("span"); var gi = el("i"); gi.style.background = "#d32f2f";
    gs.appendChild(gi); gs.appendChild(document.createTextNode("gap / bubble")); legend.appendChild(gs);

    function width() { return Math.max(svgEl.clientWidth || svgEl.getBoundingClientRect().width || 900, 200); }
    function x(t, w) { return left + (t - v0) / (v1 - v0) * (w - left - right); }
    function laneY(i) { return top + i * (laneH + laneGap); }
    function showTip(evt, text) {
      var wrap = document.getElementById("tl-wrap").getBoundingClientRect();
      tip.textContent = text; tip.style.display = "block";
      tip.style.left = Math.min(evt.clientX - wrap.left + 12, wrap.width - 260) + "px";
      tip.style.top = (evt.clientY - wrap.top + 12) + "px";
    }
    function draw() {
      var w = width();
      while (svgEl.firstChild) svgEl.removeChild(svgEl.firstChild);
      var axis = svg("g", {"class": "axis"});
      var st = niceStep(v1 - v0);
      for (var t = Math.ceil(v0 / st) * st; t <= v1; t += st) {
        var xx = x(t, w);
        axis.appendChild(svg("line", {x1: xx, x2: xx, y1: top - 6, y2: height}));
        var lab = svg("text", {x: xx + 2, y: 12}); lab.textContent = fmtUs(t - t0); axis.appendChild(lab);
      }
      svgEl.appendChild(axis);
      ranks.forEach(function (r, i) {
        var y = laneY(i);
        var g = svg("g", {"class": "lane", "data-rank": r.rank});
        g.appendChild(svg("rect", {"class": "lane-bg", x: left, y: y, width: w - left - right, height: laneH}));
        var lab = svg("text", {"class": "lane-label", x: 6, y: y + laneH / 2 + 4}); lab.textContent = r.label || ("rank " + r.rank);
        g.appendChild(lab);
        (r.steps || []).forEach(function (s) {
          var xa = Math.max(x(s.start_us, w), left), xb = Math.min(x(s.end_us, w), w - right);
          if (xb < left || xa > w - right) return;
          var color = s.class_id !== undefined ? PALETTE[classes[s.class_id] % PALETTE.length] : PALETTE[0];
          var rect = svg("rect", {"class": "step", x: xa, y: y + 3, width: Math.max(xb - xa, 0.5), height: laneH - 10,
                                  fill: color, "data-rank": r.rank, "data-step": s.step});
          rect.addEventListener("mousemove", function (evt) {
            var lines = ["rank " + r.rank + "  step " + s.step, "wall " + fmtUs(s.end_us - s.start_us)];
            if (s.class_id !== undefined) lines.push("class " + s.class_id);
            if (s.busy_us !== undefined) lines.push("busy " + fmtUs(s.busy_us));
            if (s.bubble_us !== undefined) lines.push("bubble " + fmtUs(s.bubble_us));
            if (s.prelaunch_gap_us !== undefined && s.prelaunch_gap_us !== null) lines.push("pre-launch gap " + fmtUs(s.prelaunch_gap_us));
            if (s.tail_gap_us !== undefined && s.tail_gap_us !== null) lines.push("tail gap " + fmtUs(s.tail_gap_us));
            if (s.events !== undefined) lines.push("events " + fmtNum(s.events));
            showTip(evt, lines.join("\n"));
          });
          rect.addEventListener("mouseleave", function () { tip.style.display = "none"; });
          g.appendChild(rect);
          if (xb - xa > 46) {
            var tx = svg("text", {"class": "step-label", x: xa + 3, y: y + laneH / 2 + 1}); tx.textContent = "step " + s.step;
            g.appendChild(tx);
          }
        });
        (r.gaps || []).forEach(function (gp) {
          var xa = Math.max(x(gp.start_us, w), left), xb = Math.min(x(gp.end_us, w), w - right);
          if (xb < left || xa > w - right) return;
          var gr = svg("rect", {"class": "gap", x: xa, y: y + laneH - 6, width: Math.max(xb - xa, 1), height: 5, "data-kind": gp.kind});
          gr.addEventListener("mousemove", function (evt) { showTip(evt, gp.kind + " " + fmtUs(gp.end_us - gp.start_us)); });
          gr.addEventListener("mouseleave", function () { tip.style.display = "none"; });
          g.appendChild(gr);
        });
        findingMarks.forEach(function (m) {
          if (m.ev.rank !== r.rank) return;
          var xa = Math.max(x(m.ev.start_us, w), left), xb = Math.min(x(m.ev.end_us, w), w - right);
          if (xb < left || xa > w - right) return;
          var fr = svg("rect", {"class": "finding-mark" + (active === m.f ? " active" : ""), x: xa, y: y + 1,
                                 width: Math.max(xb - xa, 2), height: laneH - 2, "data-finding-id": m.f});
          g.appendChild(fr);
        });
        svgEl.appendChild(g);
      });
      document.getElementById("tl-range").textContent = "view " + fmtUs(v0 - t0) + " .. " + fmtUs(v1 - t0);
    }
    function zoomAt(px, factor) {
      var w = width(), frac = Math.min(Math.max((px - left) / (w - left - right), 0), 1);
      var at = v0 + frac * (v1 - v0);
      var span = Math.min(Math.max((v1 - v0) * factor, 1e-3), (t1 - t0) * 4);
      v0 = at - frac * span; v1 = v0 + span; draw();
    }
    svgEl.addEventListener("wheel", function (evt) {
      evt.preventDefault();
      var r = svgEl.getBoundingClientRect();
      zoomAt(evt.clientX - r.left, Math.exp(evt.deltaY * 0.0015));
    }, {passive: false});
    var dragX = null;
    svgEl.addEventListener("mousedown", function (evt) { dragX = evt.clientX; svgEl.classList.add("dragging"); });
    window.addEventListener("mouseup", function () { dragX = null; svgEl.classList.remove("dragging"); });
    window.addEventListener("mousemove", function (evt) {
      if (dragX === null) return;
      var dt = (evt.clientX - dragX) / (width() - left - right) * (v1 - v0);
      v0 -= dt; v1 -= dt; dragX = evt.clientX; draw();
    });
    function reset() { v0 = t0; v1 = t1; active = null; draw(); }
    svgEl.addEventListener("dblclick", reset);
    document.getElementById("tl-reset").addEventListener("click", reset);
    window.addEventListener("resize", draw);
    if (!ranks.length) {
      document.getElementById("tl-wrap").appendChild(el("div", {"class": "empty"}, "no steps were segmented"));
    }
    draw();
    return {
      focus: function (ev, fid) {
        var pad = Math.max((ev.end_us - ev.start_us) * 0.5, 1);
        v0 = ev.start_us - pad; v1 = ev.end_us + pad; active = fid; draw();
        document.getElementById("timeline").scrollIntoView({behavior: "smooth"});
      },
      zoomAt: zoomAt, reset: reset,
      view: function () { return [v0, v1]; }
    };
  }
