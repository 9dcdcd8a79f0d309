  // Communication matrix (communication_matrix.json): source rank (rows) x destination rank
  // (columns), each cell's colour its bandwidth (size / time); a slow link is a pale cell among
  // dark ones. One matrix per group whose ranks the capture does not map to global ranks.
  // Returns the number of cells drawn.
  function CommMatrix(d) {
    var data = d.comm_matrix;
    if (!data || !(data.matrices || []).length) {
      collapse("comm-matrix", "No communication_matrix.json in this capture (Level1 or above writes it).");
      return 0;
    }
    var host = document.getElementById("cm-body"), drawn = 0;
    data.matrices.forEach(function (m) {
      var ranks = m.ranks, n = ranks.length, index = {};
      ranks.forEach(function (r, i) { index[r] = i; });
      var lo = Infinity, hi = 0;
      // A rank's copy to itself (LOCAL) is memory bandwidth, not a link: grey, and kept out of the scale.
      function local(c) { return c.transport === "LOCAL" || c.src === c.dst; }
      m.cells.forEach(function (c) {
        if (c.bandwidth_gbps === null || c.bandwidth_gbps === undefined || local(c)) return;
        lo = Math.min(lo, c.bandwidth_gbps); hi = Math.max(hi, c.bandwidth_gbps);
      });
      if (!(hi > 0)) { lo = 0; hi = 1; }
      var cell = Math.max(6, Math.min(28, Math.floor(560 / Math.max(1, n)))), L = 70, T = 44, legendW = 160;
      var W = L + n * cell + 24 + legendW, H = T + n * cell + 12;
      var title = el("div", {"class": "cm-title"}, m.group + ": " + m.cells.length + " link(s), " + n + " rank(s)");
      host.appendChild(title);
      var s = svg("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "cm-svg"});
      function color(bw) {
        // Light (slow) to dark (fast) blue on a linear scale between the matrix's own extremes.
        var t = hi > lo ? (bw - lo) / (hi - lo) : 1, l = 92 - 62 * t;
        return "hsl(220,60%," + l.toFixed(1) + "%)";
      }
      var every = Math.max(1, Math.ceil(n / 16));
      ranks.forEach(function (r, i) {
        if (i % every) return;
        var ty = svg("text", {x: L - 6, y: T + i * cell + cell * 0.7, "text-anchor": "end"}); ty.textContent = r;
        var tx = svg("text", {x: L + i * cell + cell / 2, y: T - 6, "text-anchor": "middle"}); tx.textContent = r;
        s.appendChild(ty); s.appendChild(tx);
      });
      var ax = svg("text", {x: L + n * cell / 2, y: 14, "text-anchor": "middle"}); ax.textContent = "destination rank";
      var ay = svg("text", {x: 12, y: T + n * cell / 2, "text-anchor": "middle", transform: "rotate(-90 12 " + (T + n * cell / 2) + ")"});
      ay.textContent = "source rank";
      s.appendChild(ax); s.appendChild(ay);
      s.appendChild(svg("rect", {x: L, y: T, width: n * cell, height: n * cell, "class": "cm-frame"}));
      m.cells.forEach(function (c) {
        var bw = c.bandwidth_gbps, known = bw !== null && bw !== undefined;
        var r = svg("rect", {x: L + index[c.dst] * cell, y: T + index[c.src] * cell, width: cell - 1, height: cell - 1,
                             fill: local(c) ? "#cfd8dc" : known ? color(bw) : "#eceff1", "class": "cm-cell",
                             "data-src": c.src, "data-dst": c.dst});
        r.appendChild(barTitle([c.src + " -> " + c.dst + (c.transport ? " (" + c.transport + ")" : ""),
                                fmtNum(c.size_mb) + " MB in " + fmtNum(c.time_ms) + " ms",
                                known ? fmtNum(bw) + " GB/s" : "no time: bandwidth unknown"]));
        s.appendChild(r);
        ++drawn;
      });
      // Legend: the scale's ends.
      var gx = L + n * cell + 24;
      for (var k = 0; k < 10; ++k)
        s.appendChild(svg("rect", {x: gx + k * 12, y: T, width: 12, height: 12, fill: color(lo + (hi - lo) * k / 9)}));
      var l0 = svg("text", {x: gx, y: T + 28}); l0.textContent = fmtNum(lo === Infinity ? 0 : lo) + " GB/s";
      var l1 = svg("text", {x: gx + 120, y: T + 28, "text-anchor": "end"}); l1.textContent = fmtNum(hi);
      s.appendChild(l0); s.appendChild(l1);
      host.appendChild(s);
    });
    return drawn;
  }
