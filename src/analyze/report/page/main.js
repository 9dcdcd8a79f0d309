  try {
    var d = JSON.parse(document.getElementById("optrace-report-data").textContent);
    renderHeader(d);
    renderKpis(d);
    document.body.setAttribute("data-rank-breakdown-bars", String(RankBreakdown(d)));
    document.body.setAttribute("data-step-breakdown-bars", String(StepBreakdown(d)));
    document.body.setAttribute("data-comm-matrix-cells", String(CommMatrix(d)));
    var timeline = Timeline(d);
    renderFindings(d, timeline);
    var inspector = Inspector(d);
    document.body.setAttribute("data-roofline-points", String(Roofline(d)));
    document.body.setAttribute("data-memory-points", String(Memory(d)));
    var host = document.getElementById("tables");
    (d.tables || []).forEach(function (t) { renderTable(t, host, 1000); });
    window.optraceTimeline = timeline;
    document.body.setAttribute("data-rendered", "ok");
    window.optraceInspector = inspector;
    if (location.hash === "#selftest") selfTest(timeline, inspector);
    // The sections grew while rendering: go to the linked one again (report.html#inspector).
    var linked = location.hash.length > 1 && document.getElementById(location.hash.slice(1));
    if (linked) linked.scrollIntoView();
  } catch (e) {
    var box = el("div", {"class": "render-error", "data-render-error": "1"}, "report.html could not render: " + e);
    document.body.insertBefore(box, document.body.firstChild);
    document.body.setAttribute("data-rendered", "error");
  }
