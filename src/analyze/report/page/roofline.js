  // Roofline: log-log, arithmetic intensity (FLOP/byte) against achieved TFLOPS; one circle per
  // operator (area ~ its time), the theoretical roof of each dtype and, dashed, the sustained one.
  function Roofline(d) {
    var rl = d.roofline, svgEl = document.getElementById("roofline-svg"), tip = document.getElementById("rl-tip");
    var info = document.getElementById("rl-info"), legend = document.getElementById("rl-legend");
    if (!rl || !(rl.points || []).length) {
      collapse("roofline", "No operator with shape-derived FLOPs and bytes (report.md section 10 says why).");
      return 0;
    }
    var pts = rl.points, roofs = rl.roofs || [], bw = rl.bandwidth_gbps;
    info.textContent = rl.hardware ? "hardware " + rl.hardware + (bw ? ", memory " + fmtNum(bw) + " GB/s" : ", no memory bandwidth: compute roofs only")
                                   : "no hardware peaks (" + (rl.hardware_note || "none given") + "): achieved rates only";
    var xs = pts.map(function (p) { return p.intensity; }), ys = pts.map(function (p) { return p.achieved_tflops; });
    roofs.forEach(function (r) { ys.push(r.tflops); });
    var lx0 = Math.floor(Math.log10(Math.min.apply(null, xs))) - 0, lx1 = Math.ceil(Math.log10(Math.max.apply(null, xs)));
    var ly0 = Math.floor(Math.log10(Math.min.apply(null, ys))), ly1 = Math.ceil(Math.log10(Math.max.apply(null, ys) * 1.5));
    if (lx1 <= lx0) lx1 = lx0 + 1;
    if (ly1 <= ly0) ly1 = ly0 + 1;
    var W = Math.max(svgEl.clientWidth || 900, 300), H = 420, L = 64, R = 130, T = 26, B = 40;
    function X(v) { return L + (Math.log10(v) - lx0) / (lx1 - lx0) * (W - L - R); }
    function Y(v) { return H - B - (Math.log10(v) - ly0) / (ly1 - ly0) * (H - T - B); }
    var axis = svg("g", {"class": "axis"});
    for (var e = lx0; e <= lx1; ++e) {
      axis.appendChild(svg("line", {x1: X(Math.pow(10, e)), x2: X(Math.pow(10, e)), y1: T, y2: H - B}));
      var tx = svg("text", {x: X(Math.pow(10, e)), y: H - B + 14, "text-anchor": "middle"}); tx.textContent = fmtNum(Math.pow(10, e)); axis.appendChild(tx);
    }
    for (var f = ly0; f <= ly1; ++f) {
      axis.appendChild(svg("line", {x1: L, x2: W - R, y1: Y(Math.pow(10, f)), y2: Y(Math.pow(10, f))}));
      var ty = svg("text", {x: L - 6, y: Y(Math.pow(10, f)) + 4, "text-anchor": "end"}); ty.textContent = fmtNum(Math.pow(10, f)); axis.appendChild(ty);
    }
    var xl = svg("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle"}); xl.textContent = "arithmetic intensity, FLOP / byte (log)"; axis.appendChild(xl);
    var yl = svg("text", {x: L, y: 12}); yl.textContent = "achieved TFLOPS (log)"; axis.appendChild(yl);
    svgEl.appendChild(axis);
    // A roof: min(peak, bandwidth x intensity), drawn over the x range.
    function roofPath(peak) {
      var a = Math.pow(10, lx0), b = Math.pow(10, lx1);
      if (!bw) return "M" + X(a) + "," + Y(peak) + " L" + X(b) + "," + Y(peak);
      var ridge = peak * 1000 / bw;  // TFLOPS / (GB/s) -> FLOP/byte
      var start = Math.max(a, Math.pow(10, ly0) * 1000 / bw);
      if (ridge <= a) return "M" + X(a) + "," + Y(peak) + " L" + X(b) + "," + Y(peak);
      return "M" + X(start) + "," + Y(bw * start / 1000) + " L" + X(Math.min(ridge, b)) + "," + Y(peak) + " L" + X(b) + "," + Y(peak);
    }
    roofs.forEach(function (r) {
      svgEl.appendChild(svg("path", {"class": "roof", d: roofPath(r.tflops)}));
      svgEl.appendChild(svg("path", {"class": "roof sustained", d: roofPath(r.sustained_tflops)}));
      var lab = svg("text", {"class": "roof-label", x: W - R + 4, y: Y(r.tflops) + 4}); lab.textContent = r.key + " " + fmtNum(r.tflops) + " T";
      svgEl.appendChild(lab);
    });
    var fams = {}, famList = [];
    pts.forEach(function (p) { if (!(p.family in fams)) { fams[p.family] = PALETTE[famList.length % PALETTE.length]; famList.push(p.family); } });
    var maxT = Math.max.apply(null, pts.map(function (p) { return p.total_us; }));
    pts.forEach(function (p, i) {
      var c = svg("circle", {"class": "rl-point", cx: X(p.intensity), cy: Y(p.achieved_tflops),
                            r: 3 + 11 * Math.sqrt(p.total_us / maxT), fill: fams[p.family], "data-i": i});
      c.addEventListener("mousemove", function (evt) {
        var wrap = document.getElementById("rl-wrap").getBoundingClientRect();
        tip.textContent = p.name + " (" + p.type + ", " + p.family + ")\n" + fmtNum(p.calls) + " calls, " + fmtUs(p.total_us) +
            "\n" + fmtNum(p.intensity) + " FLOP/byte, " + fmtNum(p.achieved_tflops) + " TFLOPS" +
            (p.peak_share !== null ? " (" + (100 * p.peak_share).toFixed(1) + "% of peak)" : "") +
            (p.bound ? "\n" + p.bound + " bound" : "") + (p.reclaim_us !== null ? ", " + fmtUs(p.reclaim_us) + " to reclaim" : "");
        tip.style.display = "block"; tip.style.whiteSpace = "pre";
        tip.style.left = Math.min(evt.clientX - wrap.left + 12, wrap.width - 300) + "px";
        tip.style.top = (evt.clientY - wrap.top + 12) + "px";
      });
      c.addEventListener("mouseleave", function () { tip.style.display = "none"; });
      svgEl.appendChild(c);
    });
    svgEl.setAttribute("viewBox", "0 0 " + W + " " + H);
    roofWarning(pts, rl.hardware);
    famList.forEach(function (f) {
      var item = el("span"), sw = el("i");
      sw.style.background = fams[f];
      item.appendChild(sw); item.appendChild(document.createTextNode(f)); legend.appendChild(item);
    });
    return pts.length;
  }

  // A point above its roof is impossible: the peak or the FLOP count is wrong. When most points of
  // one peak are above it, the peak is suspect (another device than --hardware-model says);
  // otherwise the operators' own FLOP counts (their shape formula) are.
  function roofWarning(pts, hardware) {
    var byKey = {}, lines = [];
    pts.forEach(function (p) {
      var k = p.peak_key || "?";
      byKey[k] = byKey[k] || {all: 0, over: []};
      byKey[k].all += 1;
      if (p.peak_share !== null && p.peak_share > 1) byKey[k].over.push(p);
    });
    Object.keys(byKey).forEach(function (k) {
      var g = byKey[k];
      if (!g.over.length) return;
      var worst = g.over.reduce(function (a, b) { return a.peak_share > b.peak_share ? a : b; });
      var what = g.over.length * 2 > g.all
          ? "the " + k + " peak of " + (hardware || "the hardware table") + " is suspect (is the capture from another device?)"
          : "the FLOP count of " + g.over.map(function (p) { return p.name; }).slice(0, 3).join(", ") +
            (g.over.length > 3 ? " and " + (g.over.length - 3) + " more" : "") + " is suspect (its shape formula)";
      lines.push(g.over.length + " of " + g.all + " " + k + " operator(s) above the peak (" + worst.name + " at " +
                 (100 * worst.peak_share).toFixed(0) + "%): " + what + ".");
    });
    var box = document.getElementById("rl-warning");
    lines.forEach(function (l) { box.appendChild(el("div", {"class": "roof-warning"}, l)); });
    document.body.setAttribute("data-roofline-above-peak", String(lines.length));
  }
