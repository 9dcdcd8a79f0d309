  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#3949ab", "#00897b", "#8e24aa", "#6d4c41", "#1e88e5", "#43a047", "#f4511e", "#546e7a",
                 "#c0ca33", "#5e35b1", "#00acc1", "#d81b60"];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function fmtNum(v) {
    if (typeof v !== "number") return v === null || v === undefined ? "" : String(v);
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    var a = Math.abs(v);
    return v.toLocaleString("en-US", {maximumFractionDigits: a >= 100 ? 1 : a >= 1 ? 3 : 4});
  }
  function fmtUs(us) {
    var a = Math.abs(us);
    if (a < 1e-9) return "0";
    if (a >= 1e6) return (us / 1e6).toFixed(3) + " s";
    if (a >= 1e3) return (us / 1e3).toFixed(a >= 1e5 ? 1 : 3) + " ms";
    return us.toFixed(a >= 10 ? 1 : 3) + " us";
  }

  // Axis tick spacing: 1, 2 or 5 x 10^k, about 8 ticks over `span`.
  function niceStep(span) {
    var raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
  }
