#include "analyze/report/html_report.h"
#include "core/json_text.h"

#include <sstream>

namespace optrace::analyze::report {
namespace {
constexpr std::string_view kPlaceholder = "__OPTRACE_REPORT_DATA__";
}  // namespace

namespace {
// These characters only occur inside JSON strings, where \u escapes mean the same; escaping them
// keeps "</script>" or "<!--" in a name from ending the data element early. Written in runs, so
// a multi-MB view is not copied once more.
void WriteScriptSafe(std::string_view text, std::ostream& out) {
  size_t run = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char* esc = text[i] == '<' ? "\\u003c" : text[i] == '>' ? "\\u003e" : text[i] == '&' ? "\\u0026" : nullptr;
    if (!esc) continue;
    out.write(text.data() + run, std::streamsize(i - run));
    out << esc;
    run = i + 1;
  }
  out.write(text.data() + run, std::streamsize(text.size() - run));
}
}  // namespace

std::string JsonForScript(const nlohmann::json& view) {
  std::ostringstream out;
  // error_handler::replace (JsonText): a stray invalid UTF-8 byte in a name must not abort the page.
  WriteScriptSafe(JsonText(view, -1), out);
  return out.str();
}

void RenderHtml(const nlohmann::json& view, std::ostream& out) {
  std::string_view tpl = ReportTemplateHtml();
  size_t at = tpl.find(kPlaceholder);
  out << tpl.substr(0, at);
  if (at == std::string_view::npos) return;  // cannot happen: the template test pins the marker
  WriteScriptSafe(JsonText(view, -1), out);
  out << tpl.substr(at + kPlaceholder.size());
}

}  // namespace optrace::analyze::report
