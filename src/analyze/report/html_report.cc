#include "analyze/report/html_report.h"
#include "core/json_text.h"

#include <memory>
#include <sstream>

namespace optrace::analyze::report {
namespace {
constexpr std::string_view kPlaceholder = "__OPTRACE_REPORT_DATA__";
}  // namespace

namespace {
// These characters only occur inside JSON strings, where \u escapes mean the same; escaping them
// keeps "</script>" or "<!--" in a name from ending the data element early. An output adapter of
// nlohmann's serializer: the view is written straight into the page through a 64 KiB buffer, never
// held as text (the step inspector alone can be megabytes).
class ScriptSafeOutput : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit ScriptSafeOutput(std::ostream& out) : out_(out) { buf_.reserve(kFlushAt + 8); }
  void write_character(char c) override { Put(c); }
  void write_characters(const char* s, std::size_t n) override {
    // Runs without '<', '>' or '&' (nearly all of the text) are appended whole.
    std::size_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = s[i];
      if (c != '<' && c != '>' && c != '&') continue;
      buf_.append(s + run, i - run);
      Put(c);
      run = i + 1;
    }
    buf_.append(s + run, n - run);
    if (buf_.size() >= kFlushAt) Flush();
  }
  void Flush() {
    out_.write(buf_.data(), std::streamsize(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kFlushAt = 64 << 10;
  void Put(char c) {
    switch (c) {
      case '<': buf_ += "\\u003c"; break;
      case '>': buf_ += "\\u003e"; break;
      case '&': buf_ += "\\u0026"; break;
      default: buf_ += c;
    }
    if (buf_.size() >= kFlushAt) Flush();
  }
  std::ostream& out_;
  std::string buf_;
};

// One line; error_handler::replace (core/json_text.h): a stray invalid UTF-8 byte in an operator
// name must not abort the page.
void WriteScriptSafe(const nlohmann::json& view, std::ostream& out) {
  auto adapter = std::make_shared<ScriptSafeOutput>(out);
  nlohmann::detail::serializer<nlohmann::json> serializer(adapter, ' ', nlohmann::json::error_handler_t::replace);
  serializer.dump(view, /*pretty_print=*/false, /*ensure_ascii=*/false, /*indent_step=*/0);
  adapter->Flush();
}
}  // namespace

std::string JsonForScript(const nlohmann::json& view) {
  std::ostringstream out;
  WriteScriptSafe(view, out);
  return out.str();
}

void RenderHtml(const nlohmann::json& view, std::ostream& out, const InspectorText& inspector) {
  std::string_view tpl = ReportTemplateHtml();
  size_t at = tpl.find(kPlaceholder);
  out << tpl.substr(0, at);
  if (at == std::string_view::npos) return;  // cannot happen: the template test pins the marker
  if (!inspector || !view.is_object() || !view.contains("inspector")) {
    WriteScriptSafe(view, out);
  } else {
    // The top-level object by hand, as the serializer writes one ('{', "key":value pairs in the
    // object's key order, ',' between, '}'), with the inspector's text in its place.
    auto adapter = std::make_shared<ScriptSafeOutput>(out);
    nlohmann::detail::serializer<nlohmann::json> serializer(adapter, ' ', nlohmann::json::error_handler_t::replace);
    adapter->write_character('{');
    bool first = true;
    for (auto it = view.begin(); it != view.end(); ++it) {
      if (!first) adapter->write_character(',');
      first = false;
      serializer.dump(nlohmann::json(it.key()), false, false, 0);
      adapter->write_character(':');
      if (it.key() == "inspector")
        inspector([&](std::string_view text) { adapter->write_characters(text.data(), text.size()); });
      else
        serializer.dump(it.value(), false, false, 0);
    }
    adapter->write_character('}');
    adapter->Flush();
  }
  out << tpl.substr(at + kPlaceholder.size());
}

}  // namespace optrace::analyze::report
