#include "explain/explain_html.h"

#include "core/json_text.h"

namespace optrace::explain {

std::string ExplainJsonForScript(const nlohmann::ordered_json& explain) {
  // These characters only occur inside JSON strings, where \u escapes mean the same; escaping
  // them keeps "</script>" or "<!--" in a phase name from ending the data element early.
  // explain.json is kilobytes, so it is escaped as one string (report.html streams instead).
  std::string text = JsonText(explain, -1);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

void WriteExplainHtml(const nlohmann::ordered_json& explain, std::ostream& out) {
  std::string_view tpl = ExplainTemplateHtml();
  size_t at = tpl.find(kExplainDataMarker);
  out << tpl.substr(0, at);
  if (at == std::string_view::npos) return;  // cannot happen: explain_html_test pins the marker
  out << ExplainJsonForScript(explain) << tpl.substr(at + kExplainDataMarker.size());
}

}  // namespace optrace::explain
