// Opens report.html in headless chromium and checks that the page's script rendered it:
// the findings (li[data-finding-id]), one SVG rect.step per step, the sortable operator table,
// the page's own self-test of sorting, wheel zoom and drag pan (report.html#selftest), and the
// step inspector: operator rects drawn, a step chosen and an operator clicked opens its card.
// Two pages: the report of the hand-built fixture, and `optrace analyze` on the 8-rank sample
// root under tests/data/analyze/ when it is there.
//
// Exit: 0 pass, 1 fail, 77 skip (no chromium: OPTRACE_CHROMIUM, chromium, chromium-browser).
// OPTRACE_SCREENSHOT_DIR=dir also saves a PNG of each page there, for a human look.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "analyze/report/report_writer.h"
#include "analyze/report/report_fixture.h"
#include "browser/headless_chromium.h"

namespace fs = std::filesystem;

namespace {

using namespace optrace::browser;

void CheckPage(const std::string& chromium, const fs::path& html, const std::vector<std::string>& finding_ids,
               size_t steps, const std::string& label, bool roofline = false, bool memory = false,
               size_t ranks = 0, size_t comm_cells = 0) {
  std::cout << label << ": " << html << "\n";
  fs::path profile = fs::temp_directory_path() / ("optrace_chromium_profile_" + std::to_string(getpid()));
  fs::remove_all(profile);
  std::string dom = Run(Chromium(chromium, profile, "--dump-dom", "file://" + html.string() + "#selftest"));
  Check(!dom.empty(), "chromium dumped the DOM");
  Check(dom.find("data-rendered=\"ok\"") != std::string::npos, "the page script finished (data-rendered=ok)");
  Check(dom.find("<div class=\"render-error\"") == std::string::npos, "no render error box");
  for (const std::string& id : finding_ids)
    Check(std::regex_search(dom, std::regex("<li class=\"finding[^\"]*\" data-finding-id=\"" + id + "\"")),
          "finding " + id + " rendered");
  Check(Count(dom, "<rect class=\"step\"") == steps,
        "timeline has one rect.step per step (" + std::to_string(Count(dom, "<rect class=\"step\"")) + " of " +
            std::to_string(steps) + ")");
  Check(dom.find("data-table-id=\"operator_summary\"") != std::string::npos, "operator table rendered");
  Check(dom.find("data-selftest-sort=\"ok\"") != std::string::npos, "clicking total_us sorts the operator table");
  Check(dom.find("data-selftest-zoom=\"ok\"") != std::string::npos, "wheel zooms the timeline");
  Check(dom.find("data-selftest-pan=\"ok\"") != std::string::npos, "drag pans the timeline");
  Check(Count(dom, "<rect class=\"op") > 0,
        "the step inspector drew operators (" + std::to_string(Count(dom, "<rect class=\"op")) + " rect.op)");
  Check(dom.find("data-selftest-inspector=\"ok\"") != std::string::npos,
        "choosing a step in the inspector and clicking an operator opens its card");
  // The overview plots, each under its stable id, drawn with data.
  std::smatch m;
  Check(dom.find("<section id=\"rank-breakdown\"") != std::string::npos &&
            std::regex_search(dom, m, std::regex("data-rank-breakdown-bars=\"([0-9]+)\"")) && std::stoul(m[1]) > 0 &&
            Count(dom, "<g class=\"rank-bar") == std::stoul(m[1]) && (ranks == 0 || std::stoul(m[1]) == ranks),
        "#rank-breakdown drew one stacked bar per rank (" + std::to_string(Count(dom, "<g class=\"rank-bar")) + ")");
  Check(Count(dom, "<g class=\"rank-bar slow\"") <= 1, "at most one rank is drawn as the slow rank");
  Check(dom.find("<section id=\"step-breakdown\"") != std::string::npos &&
            std::regex_search(dom, m, std::regex("data-step-breakdown-bars=\"([0-9]+)\"")) && std::stoul(m[1]) > 0 &&
            Count(dom, "<g class=\"step-bar\"") == std::stoul(m[1]),
        "#step-breakdown drew its step bars (" + std::to_string(Count(dom, "<g class=\"step-bar\"")) + ")");
  if (comm_cells) {
    Check(dom.find("<section id=\"comm-matrix\"") != std::string::npos &&
              Count(dom, "class=\"cm-cell\"") == comm_cells &&
              dom.find("data-comm-matrix-cells=\"" + std::to_string(comm_cells) + "\"") != std::string::npos,
          "#comm-matrix drew one cell per link (" + std::to_string(Count(dom, "class=\"cm-cell\"")) + " of " +
              std::to_string(comm_cells) + ")");
  } else {
    Check(dom.find("data-comm-matrix-cells=\"0\"") != std::string::npos &&
              std::regex_search(dom, std::regex("<section id=\"comm-matrix\" class=\"absent\">")),
          "#comm-matrix without links says so in one line instead of an empty box");
  }
  if (roofline) {
    size_t points = Count(dom, "<circle class=\"rl-point\"");
    Check(points > 0 && dom.find("data-roofline-points=\"" + std::to_string(points) + "\"") != std::string::npos,
          "the roofline plot drew one circle per operator (" + std::to_string(points) + ")");
    Check(Count(dom, "<path class=\"roof\"") > 0, "the roofline plot drew the hardware's roofs");
  }
  if (memory) {
    size_t lines = Count(dom, "<path class=\"alloc\"");
    Check(lines > 0 && dom.find("data-memory-points=\"0\"") == std::string::npos &&
              dom.find("data-memory-points=") != std::string::npos,
          "the memory plot drew reserved and allocated lines (" + std::to_string(lines) + " allocated line(s))");
  }
  if (const char* dir = std::getenv("OPTRACE_SCREENSHOT_DIR"); dir && *dir) {
    fs::path png = fs::path(dir) / (label + ".png");
    Run(Chromium(chromium, profile, "--screenshot=" + Quote(png.string()), "file://" + html.string()));
    std::cout << "  screenshot " << png << "\n";
    // The whole page after the self-test: the inspector (below the step timeline) with a card open.
    fs::path full = fs::path(dir) / (label + "_inspector.png");
    Run(Chromium(chromium, profile, "--window-size=1400,3200 --screenshot=" + Quote(full.string()),
                 "file://" + html.string() + "#selftest"));
    std::cout << "  screenshot " << full << "\n";
  }
  fs::remove_all(profile);
}

}  // namespace

int main() {
  std::string chromium = FindChromium();
  if (chromium.empty()) {
    std::cout << "SKIP: no chromium (install Debian's chromium, or set OPTRACE_CHROMIUM)\n";
    return 77;
  }
  fs::path work = fs::temp_directory_path() / ("optrace_browser_check_" + std::to_string(getpid()));
  fs::remove_all(work);

  // 1. The fixture report: known findings and steps.
  optrace::analyze::AnalysisResult fixture = optrace::analyze::testing::MakeReportFixture();
  optrace::analyze::report::ReportOptions opt;
  opt.out_dir = work / "fixture";
  opt.generator = "optrace browser check";
  auto written = optrace::analyze::report::WriteReport(fixture, opt);
  if (!written.ok()) {
    std::cout << "FAIL: writing the fixture report: " << written.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> ids;
  for (const auto& f : fixture.findings) ids.push_back(f.id);
  CheckPage(chromium, work / "fixture" / "report.html", ids, fixture.steps.size(), "fixture");

  // 2. A real sample through the whole command, when the samples are there.
  fs::path samples = fs::path(OPTRACE_TEST_DATA_DIR) / "analyze";
  // The 8-rank synthetic root: the most lanes and findings (planted slow rank and bubble); the
  // 2-rank Level1 sample: the communication tables (communication.json).
  for (const char* name : {"synthetic_8rank", "tp_l1_text"}) {
    fs::path root = samples / name;
    if (!fs::is_directory(root)) continue;
    fs::path out = work / name;
    const bool level1 = std::string(name) == "tp_l1_text";
    if (level1) {
      // With a memory_record.csv of torch_npu's columns on rank 0 (a copy: samples are read-only).
      fs::path copy = work / "tp_l1_text_root";
      fs::copy(root, copy, fs::copy_options::recursive);
      std::ofstream(copy / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv")
          << "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
             "PTA,1736408883704643.212\t,900.0,1400.0,900.0,1,NPU:0\n"
             "PTA,1736408883705643.212\t,1300.0,1800.0,1300.0,1,NPU:0\n"
             "PTA,1736408883706643.212\t,1100.0,1800.0,1100.0,1,NPU:0\n";
      // And a communication_matrix.json per rank: 0 <-> 1 over HCCS, each rank's LOCAL copy.
      for (int rank : {0, 1}) {
        nlohmann::json links;
        links[std::to_string(rank) + "-" + std::to_string(1 - rank)] = {
            {"Transport Type", "HCCS"}, {"Transit Size(MB)", 64.0}, {"Transit Time(ms)", rank ? 4.0 : 2.0}};
        links[std::to_string(rank) + "-" + std::to_string(rank)] = {
            {"Transport Type", "LOCAL"}, {"Transit Size(MB)", 8.0}, {"Transit Time(ms)", 0.1}};
        nlohmann::json matrix;
        matrix["step1"]["collective"]["allreduce-total@1"] = links;
        matrix["step1"]["p2p"] = nlohmann::json::object();
        std::ofstream(copy / ("rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json"))
            << matrix.dump();
      }
      root = copy;
    }
    // With a part of the bundled table: the roofline gets its roofs.
    std::string result = Run(Quote(OPTRACE_BINARY) + " analyze --format json " + Quote(root.string()) + " -o " + Quote(out.string()) +
                             " --hardware-model Ascend910B2 2>/dev/null");
    auto j = nlohmann::json::parse(result, nullptr, false);
    Check(!j.is_discarded() && j.value("status", "") == "ok", std::string("optrace analyze ") + name + " succeeded");
    if (j.is_discarded() || !j.contains("analysis_summary")) continue;
    std::vector<std::string> real_ids;
    for (const auto& f : j["findings"]) real_ids.push_back(f["id"]);
    CheckPage(chromium, out / "report.html", real_ids, j["step_count"].get<size_t>(), name, level1, level1,
              j["rank_count"].get<size_t>(), level1 ? 4 : 0);
  }
  // 3. A peak far below what the capture achieved (a profile of a made-up device): every roofline
  // point is above its roof, and the page names the peak as the suspect instead of drawing on.
  if (fs::is_directory(samples / "st_l2")) {
    fs::path profile = work / "tiny_device.json";
    std::ofstream(profile) << R"({"name": "TinyTestDevice", "cube_fp16_tflops": 0.0001, "cube_bf16_tflops": 0.0001,)"
                           << R"( "vector_fp16_tflops": 0.0001, "vector_fp32_tflops": 0.0001})";
    fs::path out = work / "st_l2_tiny";
    Run(Quote(OPTRACE_BINARY) + " analyze " + Quote((samples / "st_l2").string()) + " -o " + Quote(out.string()) +
        " --hardware-profile " + Quote(profile.string()) + " >/dev/null 2>&1");
    fs::path prof = work / "chromium_profile_tiny";
    std::string dom = Run(Chromium(chromium, prof, "--dump-dom", "file://" + (out / "report.html").string()));
    std::smatch m;
    Check(std::regex_search(dom, m, std::regex("data-roofline-above-peak=\"([0-9]+)\"")) && std::stoul(m[1]) > 0 &&
              dom.find("peak of TinyTestDevice is suspect") != std::string::npos,
          "a roofline point above its peak is named, with the peak as the suspect");
  }
  // 4. A peak between the operators' rates (cube 100 TFLOPS: the MatMul of the sample reaches 204, its
  // FlashAttention 78): a minority of that peak's points are above it, so their FLOP counts are the
  // suspect, not the peak.
  if (fs::is_directory(samples / "st_l2")) {
    fs::path profile = work / "mid_device.json";
    std::ofstream(profile) << R"({"name": "MidTestDevice", "cube_fp16_tflops": 100, "cube_bf16_tflops": 100,)"
                           << R"( "vector_fp16_tflops": 1000, "vector_fp32_tflops": 1000})";
    fs::path out = work / "st_l2_mid";
    Run(Quote(OPTRACE_BINARY) + " analyze " + Quote((samples / "st_l2").string()) + " -o " + Quote(out.string()) +
        " --hardware-profile " + Quote(profile.string()) + " >/dev/null 2>&1");
    fs::path prof = work / "chromium_profile_mid";
    std::string dom = Run(Chromium(chromium, prof, "--dump-dom", "file://" + (out / "report.html").string()));
    Check(dom.find("data-roofline-above-peak=\"1\"") != std::string::npos &&
              dom.find("the FLOP count of aclnnMatmul_MatMulV3Common_MatMulV3 is suspect (its shape formula)") !=
                  std::string::npos &&
              dom.find("peak of MidTestDevice is suspect") == std::string::npos,
          "a minority of a peak's points above it names their FLOP counts as the suspect, not the peak");
  }
  fs::remove_all(work);
  std::cout << (failures ? "FAILED: " + std::to_string(failures) + " check(s)\n" : "all checks passed\n");
  return failures ? 1 : 0;
}
