// report.html: one self-contained page (inline CSS and JS, no network) that renders the
// report view data embedded in it: summary KPIs, findings, the per-rank and per-step breakdowns,
// the communication matrix, a zoomable per-rank step timeline, the step inspector, roofline and
// memory plots and sortable summary tables. The page source is src/analyze/report/page/ (the
// markup, style.css and one script per view), joined into one document at build time
// (cmake/join_page.cmake) and compiled in, so the page still opens as one file, offline.
//
//   nlohmann::json view = BuildReportView(result, tables, options);   // report_view.h
//   RenderHtml(view, out_stream);
//
// The view's shape is documented in docs/analyze.md ("report.html data"); the page's script
// marks what it drew (data-finding-id, rect.step, data-rendered="ok") so a headless browser
// test can check it.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

namespace optrace::analyze::report {

// The page template; "__OPTRACE_REPORT_DATA__" marks where the JSON goes.
std::string_view ReportTemplateHtml();

// JSON text safe inside a <script> element: '<', '>' and '&' become \u escapes.
std::string JsonForScript(const nlohmann::json& view);

// Writes the JSON text of the view's top-level "inspector" value to `text`, a piece at a time.
using InspectorText = std::function<void(const std::function<void(std::string_view)>& text)>;

// `inspector`, when set, writes the value of the view's "inspector" key (the view holds a null
// there, ReportContext::stream_inspector): the page is written as if the view held it.
void RenderHtml(const nlohmann::json& view, std::ostream& out, const InspectorText& inspector = {});

}  // namespace optrace::analyze::report
