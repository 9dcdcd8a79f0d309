  // Memory: reserved (solid) and allocated (dashed) MB over each rank's time, one colour per rank;
  // returns the number of points drawn.
  function Memory(d) {
    var series = d.memory || [], svgEl = document.getElementById("memory-svg");
    var info = document.getElementById("mem-info"), legend = document.getElementById("mem-legend"), tip = document.getElementById("mem-tip");
    if (!series.length) {
      collapse("memory", "No memory records in this capture (memory_record.csv or MEMORY_RECORD: profile_memory=True).");
      return 0;
    }
    info.textContent = "reserved (solid) and allocated (dashed) MB of each rank's allocator component, ms from the rank's first kernel";
    var x0 = Infinity, x1 = -Infinity, y1 = 0, n = 0;
    series.forEach(function (s) { s.points.forEach(function (p) {
      x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]); y1 = Math.max(y1, p[1], p[2] || 0); ++n; }); });
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= 0) y1 = 1;
    var W = Math.max(svgEl.clientWidth || 900, 300), H = 300, L = 64, R = 20, T = 16, B = 36;
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return H - B - v / (y1 * 1.05) * (H - T - B); }
    var axis = svg("g", {"class": "axis"});
    for (var k = 0; k <= 4; ++k) {
      var yv = y1 * 1.05 * k / 4, xv = x0 + (x1 - x0) * k / 4;
      axis.appendChild(svg("line", {x1: L, x2: W - R, y1: Y(yv), y2: Y(yv)}));
      var ty = svg("text", {x: L - 6, y: Y(yv) + 4, "text-anchor": "end"}); ty.textContent = fmtNum(yv); axis.appendChild(ty);
      var tx = svg("text", {x: X(xv), y: H - B + 14, "text-anchor": "middle"}); tx.textContent = fmtNum(xv) + " ms"; axis.appendChild(tx);
    }
    var yl = svg("text", {x: L, y: 11}); yl.textContent = "MB"; axis.appendChild(yl);
    svgEl.appendChild(axis);
    series.forEach(function (s, i) {
      var colour = PALETTE[i % PALETTE.length], res = "", alloc = "";
      s.points.forEach(function (p) {
        res += (res ? " L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1);
        if (p[2] !== null) alloc += (alloc ? " L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[2]).toFixed(1);
      });
      var line = svg("path", {d: res, stroke: colour});
      var peak = s.points.reduce(function (a, p) { return p[1] > a[1] ? p : a; }, s.points[0]);
      line.addEventListener("mousemove", function (evt) {
        var wrap = document.getElementById("mem-wrap").getBoundingClientRect();
        tip.textContent = "rank " + s.rank + " " + s.component + ": peak reserved " + fmtNum(peak[1]) + " MB at " + fmtNum(peak[0]) + " ms";
        tip.style.display = "block";
        tip.style.left = Math.min(evt.clientX - wrap.left + 12, wrap.width - 300) + "px";
        tip.style.top = (evt.clientY - wrap.top + 12) + "px";
      });
      line.addEventListener("mouseleave", function () { tip.style.display = "none"; });
      svgEl.appendChild(line);
      if (alloc) svgEl.appendChild(svg("path", {"class": "alloc", d: alloc, stroke: colour}));
      var item = el("span"), sw = el("i");
      sw.style.background = colour;
      item.appendChild(sw); item.appendChild(document.createTextNode("rank " + s.rank + " " + s.component)); legend.appendChild(item);
    });
    svgEl.setAttribute("viewBox", "0 0 " + W + " " + H);
    return n;
  }
