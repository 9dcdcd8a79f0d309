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
// name must not abort the page. With `inspector`, the view's top-level object is written by hand,
// as the serializer writes one ('{', "key":value pairs in the object's key order, ',' between,
// '}'), and the inspector's text goes in place of the view's "inspector" value.
void WriteScriptSafe(const nlohmann::json& view, std::ostream& out, const InspectorText& inspector = {}) {
  auto adapter = std::make_shared<ScriptSafeOutput>(out);
  nlohmann::detail::serializer<nlohmann::json> serializer(adapter, ' ', nlohmann::json::error_handler_t::replace);
  auto dump = [&](const nlohmann::json& v) {
    serializer.dump(v, /*pretty_print=*/false, /*ensure_ascii=*/false, /*indent_step=*/0);
  };
  if (!inspector || !view.is_object() || !view.contains("inspector")) {
    dump(view);
  } else {
    adapter->write_character('{');
    for (auto it = view.begin(); it != view.end(); ++it) {
      if (it != view.begin()) adapter->write_character(',');
      dump(nlohmann::json(it.key()));
      adapter->write_character(':');
      if (it.key() == "inspector")
        inspector([&](std::string_view text) { adapter->write_characters(text.data(), text.size()); });
      else
        dump(it.value());
    }
    adapter->write_character('}');
  }
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
  WriteScriptSafe(view, out, inspector);
  out << tpl.substr(at + kPlaceholder.size());
}

}  // namespace optrace::analyze::report
