// explain.html: one self-contained page (inline CSS and JS, no network) that renders an
// explain.json document (schema_version 1): the header, the findings, three SVG charts (category
// share per core group, phase union per core group, per-rank spread of the top phases) and
// sortable tables of phases, categories, overlaps and critical children. The page source is
// explain_template.html, compiled in (explain_html.cmake).
//
//   nlohmann::ordered_json doc = ...;   // what `optrace explain --format json` prints
//   WriteExplainHtml(doc, out_stream);
//
// Writes only to `out`; never throws on odd bytes in names (they become U+FFFD). The page marks
// what it drew (rect.cat-bar, rect.phase-bar, circle.rank-dot, li[data-finding-id],
// data-rendered="ok"); opened as explain.html#selftest it checks itself and sets
// data-selftest-explain="ok" on <body>, for the headless browser test.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

namespace optrace::explain {

// The page template; kExplainDataMarker marks where the JSON goes.
inline constexpr std::string_view kExplainDataMarker = "__OPTRACE_EXPLAIN_DATA__";
std::string_view ExplainTemplateHtml();

// JSON text safe inside a <script> element: '<', '>' and '&' become \u escapes.
std::string ExplainJsonForScript(const nlohmann::ordered_json& explain);

void WriteExplainHtml(const nlohmann::ordered_json& explain, std::ostream& out);

}  // namespace optrace::explain
