#include "analyze/report/html_report.h"
#include "core/json_text.h"

namespace optrace::analyze::report {
namespace {
constexpr std::string_view kPlaceholder = "__OPTRACE_REPORT_DATA__";
}  // namespace

std::string JsonForScript(const nlohmann::json& view) {
  // error_handler::replace: a stray invalid UTF-8 byte in an operator name must not abort the page.
  std::string text = JsonText(view, -1);
  std::string safe;
  safe.reserve(text.size() + text.size() / 64);
  // These characters only occur inside JSON strings, where \u escapes mean the same; escaping
  // them keeps "</script>" or "<!--" in a name from ending the data element early.
  for (char c : text) {
    switch (c) {
      case '<': safe += "\\u003c"; break;
      case '>': safe += "\\u003e"; break;
      case '&': safe += "\\u0026"; break;
      default: safe += c;
    }
  }
  return safe;
}

void RenderHtml(const nlohmann::json& view, std::ostream& out) {
  std::string_view tpl = ReportTemplateHtml();
  size_t at = tpl.find(kPlaceholder);
  out << tpl.substr(0, at);
  if (at == std::string_view::npos) return;  // cannot happen: the template test pins the marker
  out << JsonForScript(view) << tpl.substr(at + kPlaceholder.size());
}

}  // namespace optrace::analyze::report
