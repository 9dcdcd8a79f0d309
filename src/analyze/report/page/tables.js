  // A table of any summary: header click sorts (numbers numerically), a filter box matches any cell.
  function renderTable(t, host, limit) {
    var sec = el("section", {id: "table-" + t.id});
    sec.appendChild(el("h2", null, t.title));
    if (t.note) sec.appendChild(el("div", {"class": "empty"}, t.note));
    var tools = el("div", {"class": "tbl-tools"});
    var filter = el("input", {type: "search", placeholder: "filter rows"});
    var count = el("span");
    tools.appendChild(filter); tools.appendChild(count); sec.appendChild(tools);
    var scroll = el("div", {"class": "tbl-scroll"});
    var table = el("table", {"class": "sortable", "data-table-id": t.id});
    var thead = el("thead"), tr = el("tr");
    var numeric = t.columns.map(function (c, i) {
      return t.rows.some(function (r) { return typeof r[i] === "number"; });
    });
    var sortCol = -1, sortDir = 1;
    t.columns.forEach(function (c, i) {
      var th = el("th", {"data-col": i, title: "sort by " + c}, c);
      th.addEventListener("click", function () {
        sortDir = sortCol === i ? -sortDir : (numeric[i] ? -1 : 1);
        sortCol = i; fill();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr); table.appendChild(thead);
    var tbody = el("tbody"); table.appendChild(tbody);
    scroll.appendChild(table); sec.appendChild(scroll); host.appendChild(sec);
    function fill() {
      var q = filter.value.trim().toLowerCase();
      var rows = t.rows.filter(function (r) {
        return !q || r.some(function (v) { return String(v).toLowerCase().indexOf(q) >= 0; });
      });
      if (sortCol >= 0) {
        var i = sortCol;
        rows.sort(function (a, b) { return compareCells(a[i], b[i], sortDir); });
      }
      Array.prototype.forEach.call(thead.querySelectorAll("th"), function (th, j) {
        if (j === sortCol) th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      });
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      rows.slice(0, limit).forEach(function (r) {
        var row = el("tr");
        r.forEach(function (v, j) { row.appendChild(el("td", numeric[j] ? {"class": "num"} : null, fmtNum(v))); });
        tbody.appendChild(row);
      });
      var total = t.total_rows !== undefined ? t.total_rows : t.rows.length;
      count.textContent = "showing " + Math.min(rows.length, limit) + " of " + rows.length + " rows" +
          (total > t.rows.length ? " (" + total + " in the CSV)" : "");
    }
    filter.addEventListener("input", fill);
    fill();
  }
