// Discovery of rank directories and their files.
#include "analyze/read/discover.h"

#include <climits>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "analyze/read/capture.h"
#include "core/file_io.h"
#include "core/json_number.h"

namespace optrace::analyze {
namespace fs = std::filesystem;
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// The integer in "<prefix><N><suffix>", or -1.
int NumberBetween(const std::string& name, std::string_view prefix, std::string_view suffix) {
  if (!StartsWith(name, prefix) || !EndsWith(name, suffix)) return -1;
  std::string mid = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (mid.empty() || mid.size() > 9 || !std::all_of(mid.begin(), mid.end(), ::isdigit)) return -1;
  return std::stoi(mid);
}

// A torch_npu rank directory: has ASCEND_PROFILER_OUTPUT/ or profiler_info*.json, or is a bare
// export folder (an ASCEND_PROFILER_OUTPUT copied on its own: kernel_details.csv right inside).
bool IsTorchRankDir(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir / "ASCEND_PROFILER_OUTPUT", ec)) return true;
  if (fs::is_regular_file(dir / "kernel_details.csv", ec)) return true;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (StartsWith(n, "profiler_info") && EndsWith(n, ".json")) return true;
  }
  return false;
}

void FillTorchRank(const fs::path& dir, RankInput& in) {
  in.dir = dir;
  std::error_code ec;
  // A bare export folder: its files are right here; a folder named ASCEND_PROFILER_OUTPUT has its
  // profiler_info in the parent.
  const bool bare = !fs::is_directory(dir / "ASCEND_PROFILER_OUTPUT", ec);
  const fs::path info_dir = bare && dir.filename() == "ASCEND_PROFILER_OUTPUT" ? dir.parent_path() : dir;
  for (const auto& e : fs::directory_iterator(info_dir, ec)) {
    std::string n = e.path().filename().string();
    if (StartsWith(n, "profiler_info") && EndsWith(n, ".json")) {
      in.profiler_info = e.path();
      int r = NumberBetween(n, "profiler_info_", ".json");
      if (r >= 0) {
        in.rank = r;
        in.rank_source = n;
      }
    } else if (n == "profiler_metadata.json") {
      in.profiler_metadata = e.path();
    }
  }
  fs::path out = bare ? dir : dir / "ASCEND_PROFILER_OUTPUT";
  for (const auto& e : fs::directory_iterator(out, ec)) {
    std::string n = e.path().filename().string();
    const fs::path& p = e.path();
    if (n == "kernel_details.csv") in.kernel_details = p;
    else if (n == "trace_view.json") in.trace_view = p;
    else if (n == "communication.json") in.communication = p;
    else if (n == "communication_matrix.json") in.communication_matrix = p;
    else if (n == "step_trace_time.csv") in.step_trace_time = p;
    else if (n == "op_statistic.csv") in.op_statistic = p;
    else if (n == "api_statistic.csv") in.api_statistic = p;
    else if (n == "analysis.db") in.analysis_db = p;
    else if (StartsWith(n, "ascend_pytorch_profiler") && EndsWith(n, ".db")) {
      in.db = p;
      int r = NumberBetween(n, "ascend_pytorch_profiler_", ".db");
      if (in.rank < 0 && r >= 0) {
        in.rank = r;
        in.rank_source = n;
      }
    }
  }
  // Neither profiler_info_<N> nor the db name numbers it: a folder named rank<N>_... / rank_<N>_...
  // (as launch scripts name them) does.
  if (in.rank < 0) {
    std::string n = (bare && dir.filename() == "ASCEND_PROFILER_OUTPUT" ? dir.parent_path() : dir).filename().string();
    if (StartsWith(n, "rank")) {
      size_t i = 4;
      if (i < n.size() && (n[i] == '_' || n[i] == '-')) ++i;
      size_t j = i;
      while (j < n.size() && j - i < 9 && ::isdigit(static_cast<unsigned char>(n[j]))) ++j;
      if (j > i && (j == n.size() || !::isdigit(static_cast<unsigned char>(n[j])))) {
        in.rank = std::stoi(n.substr(i, j - i));
        in.rank_source = "directory name";
      }
    }
  }
  if (!in.kernel_details.empty()) {
    in.kind = InputKind::kTorchText;
  } else if (!in.db.empty()) {
    in.kind = InputKind::kTorchDb;
  }
  // profiler_info without a number in its name (not distributed): its rank_id key.
  if (in.rank < 0 && !in.profiler_info.empty()) {
    auto text = ReadFileToString(in.profiler_info);
    if (text.ok()) {
      auto j = nlohmann::json::parse(*text, nullptr, false);
      if (j.is_object() && j.contains("rank_id")) {
        const auto& v = j["rank_id"];
        if (v.is_number_integer()) in.rank = static_cast<int>(JsonInteger(v, 0, INT_MAX).value_or(in.rank));
        else if (v.is_string()) {
          try {
            in.rank = std::stoi(v.get<std::string>());
          } catch (...) {
          }
        }
        if (in.rank >= 0) in.rank_source = "rank_id";
      }
    }
  }
}

// PROF_* with mindstudio_profiler_output/op_summary_*.csv.
bool FillMsprof(const fs::path& dir, RankInput& in) {
  fs::path out = dir / "mindstudio_profiler_output";
  std::error_code ec;
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(out, ec)) {
    std::string n = e.path().filename().string();
    if (StartsWith(n, "op_summary") && EndsWith(n, ".csv")) found.push_back(e.path());
  }
  if (found.empty()) return false;
  // A large export is sliced: op_summary_<stamp>_1.csv, _2.csv, ... each with the header. All
  // slices of the first export are read, in slice order. A trailing number is a slice number only
  // after a stamp: op_summary_<stamp>.csv files of two exports are not slices of one.
  auto ends_in_number = [](const std::string& n, size_t* at) {
    size_t u = n.find_last_of('_');
    if (u == std::string::npos || u + 1 >= n.size()) return false;
    if (!std::all_of(n.begin() + static_cast<long>(u) + 1, n.end(), ::isdigit)) return false;
    *at = u;
    return true;
  };
  auto base = [&](const fs::path& p) {
    std::string n = p.stem().string();
    size_t u = 0, v = 0;
    if (ends_in_number(n, &u) && ends_in_number(n.substr(0, u), &v)) n.resize(u);
    return n;
  };
  auto slice_no = [&](const fs::path& p) {
    std::string n = p.stem().string();
    size_t u = 0;
    return ends_in_number(n, &u) && n.size() - u <= 9 ? std::stol(n.substr(u + 1)) : 0L;
  };
  std::sort(found.begin(), found.end());
  const std::string first = base(found.front());
  std::vector<fs::path> slices;
  for (const fs::path& p : found)
    if (base(p) == first) slices.push_back(p);
  std::stable_sort(slices.begin(), slices.end(),
                   [&](const fs::path& a, const fs::path& b) { return slice_no(a) < slice_no(b); });
  in.dir = dir;
  in.kind = InputKind::kMsprof;
  in.kernel_details = slices.front();
  in.kernel_slices.assign(slices.begin() + 1, slices.end());
  return true;
}

// Layouts analyze does not read, recognised by their files, so a refusal says what the folder is
// and what to run instead of listing files.
struct LayoutHints {
  std::string old_msprof_timeline;  // PROF_*/device_N/timeline/*.json (msprof before op_summary)
  std::string mindspore_legacy;     // MindSpore profiler output before 2.3 (ascend_timeline_display_*.json, ...)
  std::string cluster_output;       // msprof-analyze's cluster_analysis_output/

  void See(const fs::path& p, const fs::path& root);
  std::string Explain() const;
};

std::string Relative(const fs::path& p, const fs::path& root);

void LayoutHints::See(const fs::path& p, const fs::path& root) {
  const std::string n = p.filename().string(), parent = p.parent_path().filename().string();
  const std::string grand = p.parent_path().parent_path().filename().string();
  if (old_msprof_timeline.empty() && parent == "timeline" && StartsWith(grand, "device_") && EndsWith(n, ".json"))
    old_msprof_timeline = Relative(p.parent_path().parent_path().parent_path(), root);
  if (mindspore_legacy.empty() &&
      ((StartsWith(n, "ascend_timeline_display_") && EndsWith(n, ".json")) ||
       (StartsWith(n, "aicore_intermediate_") && EndsWith(n, ".csv")) ||
       (StartsWith(n, "op_intermediate_") && EndsWith(n, ".csv")) ||
       (StartsWith(n, "step_trace_raw_") && EndsWith(n, ".csv"))))
    mindspore_legacy = Relative(p.parent_path(), root);
  if (cluster_output.empty() && (n == "cluster_step_trace_time.csv" || n == "cluster_analysis.db" ||
                                 n == "cluster_communication.json" || n == "cluster_communication_matrix.json"))
    cluster_output = Relative(p.parent_path(), root);
}

std::string LayoutHints::Explain() const {
  std::string s;
  if (!old_msprof_timeline.empty())
    s += fmt::format(
        "\n{} is an msprof capture in the old layout (device_N/timeline/*.json, no mindstudio_profiler_output): "
        "export its op summary with a CANN 6.0 or later msprof (msprof --export=on --output={}), then analyze it",
        old_msprof_timeline, old_msprof_timeline);
  if (!mindspore_legacy.empty())
    s += fmt::format(
        "\n{} is MindSpore profiler output from before MindSpore 2.3 (ascend_timeline_display / aicore_intermediate "
        "files): analyze reads MindSpore 2.3+ exports (<name>_ascend_ms/ASCEND_PROFILER_OUTPUT/kernel_details.csv) "
        "and the PROF_* folder beside this output once exported (msprof --export=on --output=<PROF_dir>)",
        mindspore_legacy);
  if (!cluster_output.empty())
    s += fmt::format(
        "\n{} is msprof-analyze's cluster output (cluster_step_trace_time.csv, cluster_communication*.json / "
        "cluster_analysis.db): a summary of a capture, not the capture; analyze the folder msprof-analyze read "
        "(the one holding the *_ascend_pt or PROF_* folders)",
        cluster_output);
  return s;
}

std::string Relative(const fs::path& p, const fs::path& root) {
  std::error_code ec;
  fs::path r = fs::relative(p, root, ec);
  return ec || r.empty() ? p.string() : r.string();
}

// Up to `limit` regular files under `dir`, relative to `root`, in path order: what a refusal lists.
std::vector<std::string> FilesUnder(const fs::path& dir, const fs::path& root, size_t limit) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) out.push_back(Relative(it->path(), root));
  }
  std::sort(out.begin(), out.end());
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace

Result<Discovery> Discover(const std::vector<fs::path>& roots_in, std::vector<DataIssue>& issues, int run) {
  Discovery d;
  if (roots_in.empty()) return UsageError("no profiling root given; pass one or more directories");
  std::vector<RankInput> found;
  std::vector<std::string> other_files;  // what was seen instead of kernel data
  std::vector<fs::path> rank_roots;       // roots that are a rank directory themselves (not searched)
  LayoutHints hints;
  for (const fs::path& root_in : roots_in) {
    fs::path root = ResolveAgainstCwd(root_in);
    std::error_code ec;
    if (!fs::exists(root, ec)) return NotFoundError("{}: profiling root not found; check the path", root_in.string());
    if (!fs::is_directory(root, ec))
      return BadInputError("{}: not a directory; pass the directory that holds the *_ascend_pt or PROF_* folders",
                           root_in.string());
    d.roots.push_back(root);
    if (fs::is_empty(root, ec))
      return BadInputError("{}: empty directory; no profiler output to analyze", root_in.string());
    std::vector<fs::path> candidates;
    bool root_is_rank = IsTorchRankDir(root) || fs::is_directory(root / "mindstudio_profiler_output", ec);
    if (root_is_rank) candidates.push_back(root);
    // A rank directory's own PROF_* raw data belongs to it: do not search inside.
    std::error_code walk_ec;  // the walk's own steps (ec above also carries "no such file" answers)
    for (auto it = root_is_rank ? fs::recursive_directory_iterator()
                                : fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied,
                                                                   walk_ec);
         it != fs::recursive_directory_iterator(); it.increment(walk_ec)) {
      const fs::path& p = it->path();
      if (it->is_directory(ec)) {
        if (IsTorchRankDir(p) || fs::is_directory(p / "mindstudio_profiler_output", ec)) {
          candidates.push_back(p);
          it.disable_recursion_pending();
        }
      } else {
        hints.See(p, root);
        if (other_files.size() < 12) other_files.push_back(Relative(p, root));
      }
    }
    // A failed step ends the walk early: ranks past it would be missing without a word.
    if (walk_ec) return IoError("{}: cannot list the directory: {}", root.string(), walk_ec.message());
    std::sort(candidates.begin(), candidates.end());
    for (const fs::path& c : candidates) {
      RankInput in;
      if (IsTorchRankDir(c)) {
        FillTorchRank(c, in);
      } else if (!FillMsprof(c, in)) {
        std::vector<std::string> files = FilesUnder(c / "mindstudio_profiler_output", root, 6);
        std::string list;
        for (const std::string& f : files) list += (list.empty() ? "" : ", ") + f;
        issues.push_back({"prof_folder_ignored", "data_loss",
                          fmt::format("{} is ignored: its mindstudio_profiler_output holds no op_summary_*.csv (has: {}); "
                                      "export it with op_summary (msprof --export=on --output=DIR)",
                                      Relative(c, root), list.empty() ? "nothing" : list),
                          1, c.string()});
        for (const std::string& f : files)
          if (other_files.size() < 12) other_files.push_back(f);
        continue;
      }
      found.push_back(std::move(in));
    }
    if (root_is_rank) rank_roots.push_back(root);
  }
  // One capture at a time: ranks of different runs or jobs compared as one run invent skew.
  if (run < 0) return UsageError("--run {}: captures are numbered from 1", run);
  std::vector<Capture> caps = GroupCaptures(found);
  fs::path shown_root = d.roots.size() == 1 ? d.roots[0] : fs::path("/");
  if (caps.size() > 1 && run == 0) {
    std::string list;
    for (size_t i = 0; i < caps.size(); ++i)
      list += fmt::format("\n  --run {}: {}", i + 1, DescribeCapture(caps[i], found, shown_root));
    std::string roots;
    for (const fs::path& r : roots_in) roots += (roots.empty() ? "" : ", ") + r.string();
    // `optrace sweep` over the capture directories works when none holds another's ranks.
    bool separable = true;
    std::string sweep;
    for (size_t i = 0; i < caps.size(); ++i) {
      for (size_t j = 0; j < caps.size(); ++j) {
        if (i == j) continue;
        auto rel = caps[j].dir.lexically_relative(caps[i].dir);
        if (!rel.empty() && rel.native().rfind("..", 0) != 0) separable = false;  // j under (or equal to) i
      }
      sweep += " " + caps[i].dir.string();
    }
    std::string compare = separable ? fmt::format("\nor analyze every capture and compare them: optrace sweep{} -o OUT", sweep)
                                    : std::string();
    return BadInputError(
        "{}: holds {} separate captures (different profiler configuration, collection time, or device time that never "
        "overlaps); analyzing them "
        "as one run would compare different jobs. Pick one with --run N:{}{}",
        roots, caps.size(), list, compare);
  }
  if (run > static_cast<int>(caps.size()))
    return UsageError("--run {}: the root(s) hold {} capture(s); pick 1..{}", run, caps.size(), caps.size());
  if (!caps.empty()) {
    const Capture& pick = caps[run > 0 ? run - 1 : 0];
    d.run = caps.size() > 1 ? run : 0;  // --run 1 of a single capture is the same run as none
    d.capture_count = static_cast<int>(caps.size());
    d.capture = DescribeCapture(pick, found, shown_root);
    std::vector<RankInput> kept;
    for (size_t m : pick.members) kept.push_back(std::move(found[m]));
    found = std::move(kept);
    if (caps.size() > 1)
      issues.push_back({"capture_selected", "info",
                        fmt::format("the root(s) hold {} captures; --run {} analyzed {}", caps.size(), run, d.capture),
                        1, pick.dir.string()});
  }
  // Rank ids: keep explicit ones, number the rest after them in path order.
  int next = 0;
  for (const RankInput& in : found) next = std::max(next, in.rank + 1);
  std::map<int, size_t> by_rank;
  // trace_view.json device tasks are a timeline of their own; step_trace_time.csv and
  // communication.json only complement one.
  bool any_kernels = std::any_of(found.begin(), found.end(), [](const RankInput& in) {
    return in.has_kernel_data() || !in.trace_view.empty();
  });
  for (RankInput& in : found) {
    // A rank without kernel rows joins with its step_trace_time.csv / communication.json, as
    // long as some rank of the capture has a device timeline to compare it with.
    if (!in.has_kernel_data() && !(any_kernels && in.has_partial_data())) {
      d.ranks_without_kernels.push_back(in);
      continue;
    }
    if (in.rank < 0) {
      in.rank = next++;
      in.rank_source = "order";
    }
    auto it = by_rank.find(in.rank);
    if (it != by_rank.end()) {
      issues.push_back({"duplicate_rank", "data_loss",
                        fmt::format("rank {} appears in more than one directory; kept the last by path", in.rank), 1,
                        d.ranks[it->second].dir.string()});
      d.ranks[it->second] = in;
    } else {
      by_rank[in.rank] = d.ranks.size();
      d.ranks.push_back(in);
    }
  }
  std::sort(d.ranks.begin(), d.ranks.end(), [](const RankInput& a, const RankInput& b) { return a.rank < b.rank; });
  for (const RankInput& in : d.ranks) {
    if (in.has_kernel_data()) continue;
    std::string has;
    for (const fs::path* p : {&in.trace_view, &in.step_trace_time, &in.communication})
      if (!p->empty()) has += (has.empty() ? "" : ", ") + p->filename().string();
    std::string what = !in.trace_view.empty()
                           ? "its device tasks come from trace_view.json (no pipeline, shape or dtype fields)"
                           : "it takes part in steps, HCCL ops and the cross-rank comparison only; operator tables "
                             "and kernel-level findings lack it";
    issues.push_back({"rank_without_kernel_data", "data_loss",
                      fmt::format("{} (rank {}) has no kernel_details.csv, ascend_pytorch_profiler_*.db or "
                                  "op_summary_*.csv; read instead: {}; {}",
                                  in.dir.string(), in.rank, has, what),
                      1, in.dir.string()});
  }
  for (const RankInput& in : d.ranks_without_kernels) {
    issues.push_back({"rank_without_kernel_data", "data_loss",
                      fmt::format("{} has no kernel_details.csv, ascend_pytorch_profiler_*.db or op_summary_*.csv; "
                                  "this rank is left out of the analysis",
                                  in.dir.string()),
                      1, in.dir.string()});
  }
  if (d.ranks.empty()) {
    std::string what;
    for (const RankInput& in : d.ranks_without_kernels) {
      what += fmt::format("\n  {} (rank dir without kernel data:", in.dir.string());
      for (const fs::path* p : {&in.step_trace_time, &in.communication, &in.communication_matrix, &in.trace_view,
                                &in.op_statistic, &in.profiler_info})
        if (!p->empty()) what += " " + p->filename().string();
      what += ")";
    }
    for (const fs::path& r : rank_roots)
      if (other_files.size() < 12)
        for (const std::string& f : FilesUnder(r, r, 12 - other_files.size())) other_files.push_back(f);
    std::set<std::string> listed;
    for (const std::string& f : other_files)
      if (listed.insert(f).second) what += "\n  " + f;
    if (what.empty()) what = "\n  (no files)";
    // Export files outside the folder layout the profilers write: say where each belongs.
    for (const std::string& f : other_files) {
      if (f.find("OPPROF_") != std::string::npos) {
        what += "\nOPPROF_* folders are `msprof op` profiles of single kernels (PMU counters per kernel), not a run "
                "capture: analyze reads torch_npu or msprof run exports";
        break;
      }
    }
    for (const std::string& f : other_files) {
      fs::path p(f);
      std::string n = p.filename().string(), parent = p.parent_path().filename().string();
      if (StartsWith(n, "op_summary") && EndsWith(n, ".csv") && parent != "mindstudio_profiler_output") {
        what += fmt::format("\n{} is an msprof export: it is read from msprof's layout, "
                            "PROF_<id>/mindstudio_profiler_output/{} (mkdir -p ROOT/PROF_0/mindstudio_profiler_output "
                            "and move it there)",
                            f, n);
        break;
      }
      if (n == "kernel_details.csv" && parent != "ASCEND_PROFILER_OUTPUT") {
        what += fmt::format("\n{} is a torch_npu export: it is read from <name>_ascend_pt/ASCEND_PROFILER_OUTPUT/{} "
                            "(mkdir -p ROOT/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT and move it there)",
                            f, n);
        break;
      }
    }
    what += hints.Explain();
    std::string roots;
    for (const fs::path& r : roots_in) roots += (roots.empty() ? "" : ", ") + r.string();
    return BadInputError(
        "{}: no kernel data found (expected *_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv, "
        "ascend_pytorch_profiler_<rank>.db or PROF_*/mindstudio_profiler_output/op_summary_*.csv); "
        "found instead:{}",
        roots, what);
  }
  return d;
}

}  // namespace optrace::analyze
