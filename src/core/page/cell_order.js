  // How a sortable table orders a column, `dir` 1 ascending or -1 descending: missing values
  // last in either direction, numbers as numbers, everything else as text by locale.
  function compareCells(x, y, dir) {
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    if (typeof x === "number" && typeof y === "number") return (x - y) * dir;
    return String(x).localeCompare(String(y)) * dir;
  }
