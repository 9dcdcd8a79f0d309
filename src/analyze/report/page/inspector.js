  // Single-step inspector: the device events of one step in lanes per (lane kind, stream),
  // zoomed and panned like the step timeline; a click on an operator fills #op-card. The data is
  // the compact encoding of step_inspector.h: each event an array of numbers indexing the
  // string, cost and pipeline-field tables of d.inspector.
  var OP_COLORS = {aic: "#3949ab", aiv: "#43a047", mix_cv: "#8e24aa", mix_comm_aiv: "#8d6e63",
                   communication: "#ef6c00", aicpu: "#d81b60", dsa: "#546e7a", unknown: "#90a4ae"};
  var LANE_TITLES = {compute: "compute", communication: "communication", aicpu: "AI CPU"};
  function fmtCount(v, unit) {
    var a = Math.abs(v), p = a >= 1e12 ? [1e12, "T"] : a >= 1e9 ? [1e9, "G"] : a >= 1e6 ? [1e6, "M"] : a >= 1e3 ? [1e3, "K"] : [1, ""];
    return (v / p[0]).toFixed(p[0] === 1 ? 0 : 2) + " " + p[1] + unit;
  }

  function Inspector(d) {
    var insp = d.inspector || {ranks: []};
    var S = insp.strings || {}, lanesNames = insp.lanes || ["compute", "communication", "aicpu"];
    var ranks = insp.ranks || [];
    var svgEl = document.getElementById("insp-svg"), tip = document.getElementById("insp-tip");
    var rankSel = document.getElementById("insp-rank"), stepSel = document.getElementById("insp-step");
    var card = document.getElementById("op-card"), info = document.getElementById("insp-info");
    var laneH = 18, laneGap = 3, groupGap = 8, left = 170, top = 30, right = 12;
    var step = null, lanes = [], v0 = 0, v1 = 1, t1 = 1, selected = -1;

    var legend = document.getElementById("insp-legend");
    (S.op_types || []).forEach(function (t) {
      var s = el("span"); var i = el("i"); i.style.background = OP_COLORS[t] || OP_COLORS.unknown;
      s.appendChild(i); s.appendChild(document.createTextNode(t)); legend.appendChild(s);
    });
    var bs = el("span"); var bi = el("i"); bi.style.background = "#d32f2f";
    bs.appendChild(bi); bs.appendChild(document.createTextNode("bubble")); legend.appendChild(bs);
    if (insp.embedded_events < insp.total_events) {
      legend.appendChild(el("span", null, fmtNum(insp.embedded_events) + " of " + fmtNum(insp.total_events) +
                                          " events embedded (report size limit " + fmtNum(insp.max_events) + ")"));
    }

    function stepLabel(s) {
      var t = "step " + s.step + "  " + fmtUs(s.wall_us);
      if (s.class_id !== undefined) t += "  " + s.class_id;
      if (!s.complete) t += "  partial";
      if (s.pick) t += "  (" + s.pick + ")";
      return t + (s.embedded ? "" : "  - not embedded");
    }
    ranks.forEach(function (r, i) { rankSel.appendChild(el("option", {value: i}, "rank " + r.rank)); });
    function fillSteps(ri) {
      while (stepSel.firstChild) stepSel.removeChild(stepSel.firstChild);
      // Opens on the rank's slowest step (the first embedded one otherwise).
      var slowest = -1, first = -1;
      ranks[ri].steps.forEach(function (s, i) {
        stepSel.appendChild(el("option", {value: i, "data-embedded": s.embedded ? "1" : "0"}, stepLabel(s)));
        if (s.embedded && first < 0) first = i;
        if (s.pick === "slowest") slowest = i;
      });
      stepSel.value = String(slowest >= 0 ? slowest : Math.max(first, 0));
    }

    function width() { return Math.max(svgEl.clientWidth || svgEl.getBoundingClientRect().width || 700, 200); }
    function x(t, w) { return left + (t - v0) / (v1 - v0) * (w - left - right); }
    function ev(i) { return step.ev[i]; }
    function nameOf(i) { return (S.names || [])[ev(i)[4]] || ""; }
    function opColor(e) { return OP_COLORS[(S.op_types || [])[e[9]]] || OP_COLORS.unknown; }
    function showTip(evt, text) {
      var wrap = document.getElementById("insp-wrap").getBoundingClientRect();
      tip.textContent = text; tip.style.display = "block";
      tip.style.left = Math.min(evt.clientX - wrap.left + 12, wrap.width - 260) + "px";
      tip.style.top = (evt.clientY - wrap.top + 12) + "px";
    }

    // A step's events arrive as one string (step_inspector.h): decoded when the step is first shown.
    function decode(text) {
      if (!text) return [];
      return text.split(";").map(function (r) {
        var f = r.split(",").map(Number), row = f.slice(0, 12);
        if (f.length > 12) row.push(f.slice(12));
        return row;
      });
    }

    function select(ri, si) {
      step = ranks[ri].steps[si]; selected = -1; lanes = [];
      if (typeof step.ev === "string") step.ev = decode(step.ev);
      card.innerHTML = ""; card.appendChild(el("div", {"class": "empty"}, "Click an operator to see its card."));
      if (step.embedded) {
        var byKey = {};
        step.ev.forEach(function (e, i) {
          var k = e[3] + ":" + e[2];
          if (!byKey[k]) { byKey[k] = {kind: e[3], stream: e[2], idx: []}; lanes.push(byKey[k]); }
          byKey[k].idx.push(i);
        });
        lanes.sort(function (a, b) { return a.kind - b.kind || a.stream - b.stream; });
      }
      t1 = step.truncated ? 0 : step.wall_us;
      (step.ev || []).forEach(function (e) { t1 = Math.max(t1, e[0] + e[1]); });
      if (!(t1 > 0)) t1 = 1;
      v0 = 0; v1 = t1;
      info.textContent = "rank " + ranks[ri].rank + " step " + step.step + ": " + fmtNum(step.events) + " events, wall " +
          fmtUs(step.wall_us) + (step.embedded ? ", " + (step.bubbles || []).length + " bubble(s)" : "") +
          (step.truncated ? "; only its first " + fmtNum(step.embedded_events) + " events are embedded (report size limit)" : "");
      draw();
    }

    function draw() {
      var w = width();
      while (svgEl.firstChild) svgEl.removeChild(svgEl.firstChild);
      if (!step || !step.embedded) {
        svgEl.setAttribute("height", 60);
        var msg = svg("text", {x: 10, y: 34, "class": "lane-label"});
        msg.textContent = step ? "step " + step.step + ": " + fmtNum(step.events) + " events not embedded (report size limit)"
                               : "no step with a device timeline";
        svgEl.appendChild(msg);
        return;
      }
      var ys = [], y = top, prevKind = -1;
      lanes.forEach(function (l) {
        if (prevKind >= 0 && l.kind !== prevKind) y += groupGap;
        ys.push(y); y += laneH + laneGap; prevKind = l.kind;
      });
      var height = Math.max(y + 4, 60);
      svgEl.setAttribute("height", height);
      var axis = svg("g", {"class": "axis"});
      var st = niceStep(v1 - v0);
      for (var t = Math.ceil(v0 / st) * st; t <= v1; t += st) {
        var xx = x(t, w);
        axis.appendChild(svg("line", {x1: xx, x2: xx, y1: top - 12, y2: height}));
        var lab = svg("text", {x: xx + 2, y: 12}); lab.textContent = fmtUs(t); axis.appendChild(lab);
      }
      svgEl.appendChild(axis);
      lanes.forEach(function (l, li) {
        var g = svg("g", {"class": "lane", "data-lane": lanesNames[l.kind], "data-stream": l.stream});
        g.appendChild(svg("rect", {"class": "lane-bg k" + l.kind, x: left, y: ys[li], width: w - left - right, height: laneH}));
        if (li === 0 || lanes[li - 1].kind !== l.kind) {
          var gl = svg("text", {"class": "group-label", x: 6, y: ys[li] + laneH / 2 + 4});
          gl.textContent = LANE_TITLES[lanesNames[l.kind]] || lanesNames[l.kind]; g.appendChild(gl);
        }
        var lab = svg("text", {"class": "lane-label", x: left - 6, y: ys[li] + laneH / 2 + 4, "text-anchor": "end"});
        lab.textContent = l.stream >= 0 ? "stream " + l.stream : "no stream id"; g.appendChild(lab);
        // Operators narrower than a pixel that touch the previous one merge into it (data-n):
        // a step of tens of thousands of kernels stays a few thousand rects at full view.
        var last = null, lastEnd = -Infinity;
        l.idx.forEach(function (i) {
          var e = ev(i), xa = x(e[0], w), xb = x(e[0] + e[1], w);
          if (xb < left || xa > w - right) return;
          xa = Math.max(xa, left); xb = Math.min(xb, w - right);
          if (last && xb - xa < 1 && xa < lastEnd + 0.5) {
            lastEnd = Math.max(lastEnd, xb);
            last.setAttribute("width", Math.max(lastEnd - parseFloat(last.getAttribute("x")), 1));
            last.setAttribute("data-n", +last.getAttribute("data-n") + 1);
            return;
          }
          last = svg("rect", {"class": "op" + (i === selected ? " sel" : ""), x: xa, y: ys[li] + 1, width: Math.max(xb - xa, 1),
                              height: laneH - 2, fill: opColor(e), "data-i": i, "data-n": 1});
          lastEnd = Math.max(xb, xa + 1);
          g.appendChild(last);
        });
        svgEl.appendChild(g);
      });
      (step.bubbles || []).forEach(function (b) {
        var xa = Math.max(x(b[0], w), left), xb = Math.min(x(b[0] + b[1], w), w - right);
        if (xb < left || xa > w - right) return;
        var common = {x: xa, width: Math.max(xb - xa, 1), "data-start-us": b[0], "data-dur-us": b[1]};
        [["bubble", top - 4, height - top + 4], ["bubble-mark", top - 10, 5]].forEach(function (k) {
          var r = svg("rect", {"class": k[0], y: k[1], height: k[2]});
          for (var a in common) r.setAttribute(a, common[a]);
          svgEl.appendChild(r);
        });
      });
    }

    function row(tbl, k, v, mono) {
      var tr = el("tr"); tr.appendChild(el("td", null, k)); tr.appendChild(el("td", mono ? {"class": "mono"} : null, v));
      tbl.appendChild(tr);
    }
    function showCard(i) {
      selected = i;
      var e = ev(i), dur = e[1];
      card.innerHTML = "";
      card.appendChild(el("h3", null, nameOf(i)));
      var tbl = el("table");
      row(tbl, "type", (S.types || [])[e[5]] || "-", true);
      row(tbl, "op type", (S.op_types || [])[e[9]]);
      row(tbl, "lane", (LANE_TITLES[lanesNames[e[3]]] || lanesNames[e[3]]) + (e[2] >= 0 ? ", stream " + e[2] : ", no stream id"));
      row(tbl, "input shapes", (S.shapes || [])[e[6]] || "-", true);
      row(tbl, "output shapes", (S.shapes || [])[e[7]] || "-", true);
      row(tbl, "dtypes", (S.dtypes || [])[e[8]] || "-", true);
      row(tbl, "duration", fmtUs(dur));
      row(tbl, "start", fmtUs(e[0]) + " after the step start");
      row(tbl, "bound", (S.bounds || [])[e[11]] || "unknown");
      card.appendChild(tbl);
      var pipe = e[12];
      if (pipe) {
        card.appendChild(el("h4", null, "pipeline split"));
        var pt = el("table");
        for (var f = 0; f + 1 < pipe.length; f += 2) {
          var v = pipe[f + 1];
          var tr = el("tr"); tr.appendChild(el("td", null, (insp.pipe_fields || [])[pipe[f]]));
          var td = el("td"), bar = el("span", {"class": "bar"});
          bar.style.width = Math.round(Math.min(dur > 0 ? v / dur : 0, 1) * 90) + "px";
          td.appendChild(bar); td.appendChild(document.createTextNode(fmtUs(v) + (dur > 0 ? "  " + Math.round(v / dur * 100) + "%" : "")));
          tr.appendChild(td); pt.appendChild(tr);
        }
        card.appendChild(pt);
      }
      card.appendChild(el("h4", null, "roofline"));
      var c = e[10] >= 0 ? (insp.costs || [])[e[10]] : null;
      if (!c) {
        card.appendChild(el("div", {"class": "empty"}, "not modelled: no shape-derived FLOPs for this call"));
      } else {
        var rt = el("table"), sec = dur * 1e-6;
        var tflops = sec > 0 ? c.flops / sec / 1e12 : NaN, gbps = sec > 0 ? c.bytes / sec / 1e9 : NaN;
        row(rt, "family", c.family + (c.dtype ? " (" + c.dtype + ")" : ""));
        if (c.dims) row(rt, "dims", c.dims, true);
        row(rt, "work", fmtCount(c.flops, "FLOP") + ", " + fmtCount(c.bytes, "B"));
        row(rt, "intensity", fmtNum(c.intensity) + " FLOP/B");
        row(rt, "achieved", fmtNum(tflops) + " TFLOPS, " + fmtNum(gbps) + " GB/s");
        var pk = insp.peaks, peak = pk && pk.tflops ? pk.tflops[c.peak_key] : null, bw = pk ? pk.hbm_bandwidth_gbps : null;
        if (typeof peak === "number") {
          row(rt, "peak", fmtNum(peak) + " TFLOPS (" + (pk.hardware || "?") + "), " + fmtNum(tflops / peak * 100) + "% of it");
          if (typeof bw === "number" && bw > 0) {
            var ridge = peak * 1e3 / bw, attainable = Math.min(peak, c.intensity * bw / 1e3);
            row(rt, "position", (c.intensity < ridge ? "memory" : "compute") + "-bound side (ridge " + fmtNum(ridge) +
                " FLOP/B); attainable " + fmtNum(attainable) + " TFLOPS, achieved " + fmtNum(tflops / attainable * 100) + "% of it");
          } else {
            row(rt, "position", "unknown: no HBM bandwidth for " + (pk.hardware || "this part"));
          }
        } else {
          row(rt, "peak", pk ? "the hardware has no peak for " + c.peak_key : "no hardware peaks (set --hardware-model)");
        }
        if (c.note) row(rt, "note", c.note);
        card.appendChild(rt);
      }
      draw();
    }

    function zoomAt(px, factor) {
      var w = width(), frac = Math.min(Math.max((px - left) / (w - left - right), 0), 1);
      var at = v0 + frac * (v1 - v0);
      var span = Math.min(Math.max((v1 - v0) * factor, 1e-2), t1 * 4);
      v0 = at - frac * span; v1 = v0 + span; draw();
    }
    function center() { return left + (width() - left - right) / 2; }
    function reset() { v0 = 0; v1 = t1; draw(); }
    svgEl.addEventListener("wheel", function (evt) {
      evt.preventDefault();
      zoomAt(evt.clientX - svgEl.getBoundingClientRect().left, Math.exp(evt.deltaY * 0.0015));
    }, {passive: false});
    var dragX = null, moved = 0;
    svgEl.addEventListener("mousedown", function (evt) { dragX = evt.clientX; moved = 0; svgEl.classList.add("dragging"); });
    window.addEventListener("mouseup", function () { dragX = null; svgEl.classList.remove("dragging"); });
    window.addEventListener("mousemove", function (evt) {
      if (dragX === null) return;
      var dt = (evt.clientX - dragX) / (width() - left - right) * (v1 - v0);
      moved += Math.abs(evt.clientX - dragX);
      v0 -= dt; v1 -= dt; dragX = evt.clientX; draw();
    });
    svgEl.addEventListener("click", function (evt) {
      var t = evt.target;
      if (moved > 3 || !t.classList || !t.classList.contains("op")) return;  // the end of a drag is no click
      showCard(+t.getAttribute("data-i"));
    });
    svgEl.addEventListener("mousemove", function (evt) {
      var t = evt.target;
      if (dragX !== null || !t.classList) return;
      if (t.classList.contains("op")) {
        var i = +t.getAttribute("data-i"), n = +t.getAttribute("data-n"), e = ev(i);
        showTip(evt, nameOf(i) + "\n" + fmtUs(e[1]) + " at " + fmtUs(e[0]) + (n > 1 ? "\n+" + (n - 1) + " more: zoom in" : ""));
      } else if (t.classList.contains("bubble") || t.classList.contains("bubble-mark")) {
        showTip(evt, "bubble " + fmtUs(+t.getAttribute("data-dur-us")) + " at " + fmtUs(+t.getAttribute("data-start-us")));
      } else {
        tip.style.display = "none";
      }
    });
    svgEl.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    svgEl.addEventListener("dblclick", reset);
    document.getElementById("insp-in").addEventListener("click", function () { zoomAt(center(), 0.5); });
    document.getElementById("insp-out").addEventListener("click", function () { zoomAt(center(), 2); });
    document.getElementById("insp-reset").addEventListener("click", reset);
    rankSel.addEventListener("change", function () { fillSteps(+rankSel.value); select(+rankSel.value, +stepSel.value); });
    stepSel.addEventListener("change", function () { select(+rankSel.value, +stepSel.value); });
    window.addEventListener("resize", draw);
    if (ranks.length) { fillSteps(0); select(0, +stepSel.value); } else { draw(); }
    return {
      nameOf: nameOf, zoomAt: zoomAt, reset: reset,
      view: function () { return [v0, v1]; },
      // [rank index, step index] of the last step with embedded events, null when none.
      lastEmbedded: function () {
        for (var ri = ranks.length - 1; ri >= 0; --ri)
          for (var si = ranks[ri].steps.length - 1; si >= 0; --si)
            if (ranks[ri].steps[si].embedded && ranks[ri].steps[si].ev.length) return [ri, si];
        return null;
      }
    };
  }
