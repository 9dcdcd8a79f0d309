  // Opened as report.html#selftest (the headless browser test), the page drives its own
  // controls once and records the outcome in data-selftest-* attributes of <body>.
  function selfTest(timeline, inspector) {
    var body = document.body;
    // Inspector: choose a step with embedded events through the selects, click its first operator.
    var pick = inspector.lastEmbedded();
    if (!pick) {
      body.setAttribute("data-selftest-inspector", "none");
    } else {
      var rs = document.getElementById("insp-rank"), ss = document.getElementById("insp-step");
      rs.value = String(pick[0]); rs.dispatchEvent(new Event("change"));
      ss.value = String(pick[1]); ss.dispatchEvent(new Event("change"));
      var op = document.querySelector("#insp-svg rect.op");
      var ok = !!op;
      if (op) {
        var name = inspector.nameOf(+op.getAttribute("data-i"));
        op.dispatchEvent(new MouseEvent("click", {bubbles: true}));
        var h = document.querySelector("#op-card h3");
        ok = name !== "" && !!h && h.textContent === name;
      }
      body.setAttribute("data-selftest-inspector", ok ? "ok" : "fail");
    }
    var table = document.querySelector('table[data-table-id="operator_summary"]');
    if (table) {
      var ths = table.querySelectorAll("th"), col = -1;
      Array.prototype.forEach.call(ths, function (th, i) { if (th.textContent === "total_us") col = i; });
      if (col >= 0) {
        ths[col].click(); ths[col].click();  // numeric columns sort descending first, then ascending
        var vals = Array.prototype.map.call(table.querySelectorAll("tbody tr"), function (tr) {
          return parseFloat(tr.children[col].textContent.replace(/,/g, ""));
        });
        var asc = vals.every(function (v, i) { return i === 0 || vals[i - 1] <= v; });
        body.setAttribute("data-selftest-sort", asc && ths[col].getAttribute("aria-sort") === "ascending" ? "ok" : "fail");
      }
    }
    var svgEl = document.getElementById("timeline-svg");
    var r = svgEl.getBoundingClientRect();
    var before = timeline.view();
    svgEl.dispatchEvent(new WheelEvent("wheel", {deltaY: -400, clientX: r.left + r.width / 2, clientY: r.top + 20,
                                                 bubbles: true, cancelable: true}));
    var zoomed = timeline.view();
    body.setAttribute("data-selftest-zoom", zoomed[1] - zoomed[0] < before[1] - before[0] ? "ok" : "fail");
    svgEl.dispatchEvent(new MouseEvent("mousedown", {clientX: r.left + 300, clientY: r.top + 20, bubbles: true}));
    window.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + 200, clientY: r.top + 20, bubbles: true}));
    window.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
    var panned = timeline.view();
    body.setAttribute("data-selftest-pan", panned[0] > zoomed[0] ? "ok" : "fail");
    timeline.reset();
  }
