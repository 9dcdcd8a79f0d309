// Opens explain.html (written from tests/data/explain/sample_explain.json) in headless chromium
// and checks that the page's script rendered it: data-rendered="ok", the page's own self-test
// (explain.html#selftest: bars and dots drawn as the data says, findings count, sorting the phases
// table, a tooltip), and, from the dumped DOM, the category and phase bars, the rank dots and one
// li[data-finding-id] per finding.
//
// Exit: 0 pass, 1 fail, 77 skip (no chromium: OPTRACE_CHROMIUM, chromium, chromium-browser).
// OPTRACE_SCREENSHOT_DIR=dir also saves a PNG of the whole page there, for a human look.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "explain/explain_html.h"
#include "browser/headless_chromium.h"

namespace fs = std::filesystem;

namespace {

using namespace optrace::browser;

// The value of a data-* attribute of <body>, "" when absent.
std::string BodyAttr(const std::string& dom, const std::string& name) {
  size_t body = dom.find("<body");
  if (body == std::string::npos) return "";
  size_t end = dom.find('>', body);
  size_t at = dom.find(" " + name + "=\"", body);
  if (at == std::string::npos || at > end) return "";
  at += name.size() + 3;
  return dom.substr(at, dom.find('"', at) - at);
}

}  // namespace

int main() {
  std::string chromium = FindChromium();
  if (chromium.empty()) {
    std::cout << "SKIP: no chromium (install Debian's chromium, or set OPTRACE_CHROMIUM)\n";
    return 77;
  }
  fs::path sample = fs::path(OPTRACE_TEST_DATA_DIR) / "explain" / "sample_explain.json";
  std::ifstream in(sample);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in, nullptr, false);
  if (doc.is_discarded()) {
    std::cout << "FAIL: " << sample << " is not JSON\n";
    return 1;
  }
  fs::path work = fs::temp_directory_path() / ("optrace_explain_browser_" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  fs::path html = work / "explain.html";
  {
    std::ofstream out(html);
    optrace::explain::WriteExplainHtml(doc, out);
  }
  std::cout << "sample: " << html << "\n";
  fs::path profile = work / "profile";
  std::string dom = Run(Chromium(chromium, profile, "--dump-dom", "file://" + html.string() + "#selftest"));
  Check(!dom.empty(), "chromium dumped the DOM");
  Check(BodyAttr(dom, "data-rendered") == "ok", "the page script finished (data-rendered=ok)");
  Check(dom.find("<div class=\"render-error\"") == std::string::npos, "no render error box");
  std::string selftest = BodyAttr(dom, "data-selftest-explain");
  Check(selftest == "ok", "the page's self-test passed (data-selftest-explain=" + selftest +
                              (selftest == "fail" ? ", failed: " + BodyAttr(dom, "data-selftest-failed") : "") + ")");

  size_t non_container = 0;
  for (const auto& c : doc["categories"]) non_container += c["category"] != "container";
  size_t cat_bars = Count(dom, "<rect class=\"cat-bar\"");
  Check(cat_bars > 0 && cat_bars == non_container, "one category bar segment per non-container category (" +
                                                       std::to_string(cat_bars) + " of " +
                                                       std::to_string(non_container) + ")");
  size_t phase_bars = Count(dom, "<rect class=\"phase-bar\"");
  Check(phase_bars == doc["phases"].size(), "one phase bar per phase (" + std::to_string(phase_bars) + " of " +
                                                std::to_string(doc["phases"].size()) + ")");
  size_t dots = Count(dom, "<circle class=\"rank-dot\"");
  Check(dots > 0 && dots % doc["ranks"].size() == 0,
        "rank dots drawn, one per rank on each spread row (" + std::to_string(dots) + ")");
  Check(BodyAttr(dom, "data-count-rank-dots") == std::to_string(dots), "the page counted the dots it drew");
  Check(Count(dom, "<li class=\"finding") == doc["findings"].size(),
        "the findings list has one item per finding (" + std::to_string(Count(dom, "<li class=\"finding")) + ")");
  for (const auto& f : doc["findings"])
    Check(dom.find("data-finding-id=\"" + f["id"].get<std::string>() + "\"") != std::string::npos,
          "finding " + f["id"].get<std::string>() + " rendered");
  size_t gantt_spans = 0;
  for (const auto& c : doc["core_gantt"]["cores"]) gantt_spans += c["spans"].size();
  Check(dom.find("<section id=\"core-gantt\"") != std::string::npos &&
            Count(dom, "<rect class=\"gantt-span\"") == gantt_spans && gantt_spans > 0 &&
            BodyAttr(dom, "data-count-gantt-spans") == std::to_string(gantt_spans),
        "#core-gantt drew one bar per span of each core (" + std::to_string(Count(dom, "<rect class=\"gantt-span\"")) +
            " of " + std::to_string(gantt_spans) + ")");
  for (const char* table : {"phases", "categories", "overlaps", "critical"})
    Check(dom.find(std::string("data-table-id=\"") + table + "\"") != std::string::npos,
          std::string("table ") + table + " rendered");

  if (const char* dir = std::getenv("OPTRACE_SCREENSHOT_DIR"); dir && *dir) {
    fs::path png = fs::path(dir) / "explain_sample.png";
    Run(Chromium(chromium, profile, "--window-size=1400,3400 --screenshot=" + Quote(png.string()),
                 "file://" + html.string()));
    std::cout << "  screenshot " << png << "\n";
  }
  fs::remove_all(work);
  std::cout << (failures ? "FAILED: " + std::to_string(failures) + " check(s)\n" : "all checks passed\n");
  return failures ? 1 : 0;
}
