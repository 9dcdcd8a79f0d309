// RunAnalysis: stage sequencing, stage files, progress events, identity and limitations.
#include "analyze/pipeline/pipeline.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "analyze/segment/classify.h"
#include "analyze/cross_rank/cross_rank.h"
#include "analyze/diagnose/diagnose.h"
#include "analyze/read/discover.h"
#include "analyze/cross_rank/host_attribution.h"
#include "analyze/read/normalize.h"
#include "analyze/read/process_identity.h"
#include "analyze/rules/rules.h"
#include "analyze/segment/segment.h"
#include "analyze/pipeline/stage_io.h"
#include "analyze/summarize/summarize.h"
#include "core/file_io.h"
#include "core/parallel_for.h"
#include "core/process_memory.h"

namespace optrace::analyze {
namespace {

constexpr std::string_view kStageNames[kStageCount] = {"discover",  "normalize",  "segment",  "classify",
                                                       "summarize", "cross_rank", "diagnose", "report"};

void FillIdentity(AnalysisResult& r) {
  Identity& id = r.identity;
  id.roots.clear();
  for (const auto& p : r.discovery.roots) id.roots.push_back(p.string());
  id.ranks.clear();
  id.input_kinds.clear();
  id.event_count = 0;
  for (const RankTable& t : r.ranks) {
    id.ranks.push_back(t.rank);
    id.input_kinds.emplace_back(InputKindName(t.kind));
    id.event_count += t.events.size();
    auto pick = [](std::string& dst, const std::string& v) {
      if (dst.empty()) dst = v;
    };
    pick(id.profiler_level, t.identity.profiler_level);
    pick(id.torch_npu_version, t.identity.torch_npu_version);
    pick(id.cann_version, t.identity.cann_version);
    pick(id.device_name, t.identity.device_name);
  }
  id.step_count = static_cast<int>(r.steps.size());
  id.layer_count = static_cast<int>(r.layers.size());
}

// What the kernel CSV headers hold of the pipeline (PMU) columns, for the limitation that says
// why bound_stage / bound_family are unknown.
struct PmuColumns {
  std::vector<std::string> unsplit;  // stage times of an AI Core not split into cube and vector cores
  std::vector<std::string> other;    // every PMU column (aic_*, aiv_*, cube_*, total_cycles, *_ratio)
  bool stage_time = false;           // a stage time this reader keeps (kPipeSumFields)
  bool split_sub_stage = false;      // one of them other than aicore_time / aiv_time
  std::string aic_metrics;           // the capture's, when its profiler_info names it
};

PmuColumns PmuColumnsOf(const AnalysisResult& r) {
  static constexpr std::string_view kUnsplit[] = {"mac_time(us)",  "vec_time(us)",  "scalar_time(us)",
                                                  "mte1_time(us)", "mte2_time(us)", "mte3_time(us)"};
  auto add = [](std::vector<std::string>& v, const std::string& c) {
    if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
  };
  PmuColumns p;
  for (const RankTable& t : r.ranks) {
    if (p.aic_metrics.empty()) p.aic_metrics = t.identity.aic_metrics;
    for (const std::string& c : t.identity.csv_columns) {
      for (Pipe f : kPipeSumFields) {
        if (c != PipeColumnName(f)) continue;
        p.stage_time = true;
        p.split_sub_stage |= f != Pipe::kAicoreTime && f != Pipe::kAivTime;
      }
      if (std::find(std::begin(kUnsplit), std::end(kUnsplit), c) != std::end(kUnsplit)) add(p.unsplit, c);
      if (c.rfind("aic_", 0) == 0 || c.rfind("aiv_", 0) == 0 || c.rfind("cube_", 0) == 0 || c == "total_cycles" ||
          (c.size() > 6 && c.compare(c.size() - 6, 6, "_ratio") == 0))
        add(p.other, c);
    }
  }
  return p;
}

// "a, b, c, d and 2 more"
std::string ColumnList(const std::vector<std::string>& names, size_t shown) {
  std::string list;
  for (size_t i = 0; i < names.size() && i < shown; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > shown) list += fmt::format(" and {} more", names.size() - shown);
  return list;
}

// Why bound_stage / bound_family are unknown, when the headers tell. Saying "Level0" for a
// capture that has PMU columns sends the user to the wrong fix: an AI Core not split into cube and
// vector cores (op_summary of Atlas training / inference series: mac_time(us), vec_time(us), ...;
// the event's stage fields are the split cores', so these are not read), or another aic_metrics
// set than PipeUtilization (ArithmeticUtilization, Memory, ...), or ratios only.
std::optional<std::string> PipelineLimitation(const AnalysisResult& r) {
  const PmuColumns p = PmuColumnsOf(r);
  if (!p.unsplit.empty() && !p.split_sub_stage)
    return fmt::format(
        "The kernel rows' stage times ({}) are those of an AI Core not split into cube and vector cores; optrace "
        "reads the split cores' times (aic_mac_time(us), aiv_vec_time(us), ...) only, so bound_stage / bound_family "
        "are unknown for these rows (aicore_time(us) is read).",
        ColumnList(p.unsplit, p.unsplit.size()));
  if (!r.summaries.events_total || r.summaries.events_with_pipeline != 0) return std::nullopt;
  if (p.other.empty() || p.stage_time)
    return "No pipeline (PMU) data (Level0 or no aic_metrics): bound_stage / bound_family are unknown.";
  return fmt::format(
      "No PipeUtilization stage times: the kernel rows' PMU columns ({}) hold none of the times bound_stage reads "
      "(aicore_time(us), aic_mac_time(us), aiv_vec_time(us), ...){}, so bound_stage / bound_family are unknown; a "
      "capture with aic_metrics PipeUtilization writes them.",
      ColumnList(p.other, 4), p.aic_metrics.empty() ? "" : fmt::format("; the capture's aic_metrics: {}", p.aic_metrics));
}

// Compute kernels whose names say they move data between ranks (a custom dispatch / combine /
// all-to-all kernel the taxonomy does not know): counted as compute, though part of their time is
// transfer and waiting for peers (issue 52). A caveat, not a reclassification: the name is a guess.
std::optional<std::string> CustomCommunicationKernels(const AnalysisResult& r) {
  static constexpr std::string_view kWords[] = {"dispatch", "combine", "alltoall", "all_to_all", "allgather",
                                                "all_gather", "reducescatter", "reduce_scatter", "allreduce",
                                                "all_reduce"};
  std::map<std::string, double> ms;  // name -> total ms over ranks
  for (const OperatorSummary& o : r.summaries.operators) {
    if (IsComm(o.op_type) || o.op_type == OpType::kAicpu || o.op_type == OpType::kDsa) continue;
    std::string name(r.Str(o.name)), lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view w : kWords)
      if (lower.find(w) != std::string::npos) {
        ms[name] += o.stats.total_us / 1e3;
        break;
      }
  }
  if (ms.empty()) return std::nullopt;
  std::vector<std::pair<double, std::string>> by_time;
  for (auto& [name, v] : ms) by_time.push_back({v, name});
  std::sort(by_time.rbegin(), by_time.rend());
  std::string list;
  for (size_t i = 0; i < by_time.size() && i < 3; ++i)
    list += fmt::format("{}{} {:.3f} ms", i ? ", " : "", by_time[i].second, by_time[i].first);
  return fmt::format(
      "{} compute operator(s) whose names say they exchange data between ranks ({}{}) are counted as compute: the "
      "taxonomy (op_taxonomy.json comm_aiv_fused_name_regex) does not know them, so their transfer and wait time is "
      "in compute, not communication; add their names there if they communicate.",
      by_time.size(), list, by_time.size() > 3 ? ", ..." : "");
}

void AddLimitations(AnalysisResult& r) {
  std::vector<std::string>& L = r.limitations;
  L.clear();
  for (const RankInput& in : r.discovery.ranks_without_kernels)
    L.push_back(fmt::format("{} has no kernel data; that rank is missing from every table and from the cross-rank "
                            "comparison.",
                            in.dir.string()));
  for (const RankInput& in : r.discovery.ranks)
    if (!in.has_kernel_data() && !in.trace_view.empty())
      L.push_back(fmt::format("{} has no kernel data: rank {}'s device tasks come from trace_view.json, without "
                              "pipeline (PMU), shape or dtype fields, so its operators have no bound family, MFU or "
                              "roofline, and its steps no shape classes; export kernel_details.csv (any "
                              "profiler_level) for those.",
                              in.dir.string(), in.rank));
    else if (!in.has_kernel_data())
      L.push_back(fmt::format("{} has no kernel data: rank {} takes part in the step, HCCL and cross-rank comparison "
                              "from step_trace_time.csv / communication.json only and is missing from the operator "
                              "tables.",
                              in.dir.string(), in.rank));
  for (const RankSummary& s : r.summaries.ranks)
    if (s.low_confidence)
      L.push_back(fmt::format("Rank {}: kernel rows cover {:.0f}% of what its step_trace_time.csv / communication.json "
                              "report; its KPIs are low confidence (kernel_rows_incomplete).",
                              s.rank, 100 * s.kernel_coverage));
  if (r.ranks.size() < 2) L.push_back("Single rank: no cross-rank alignment, skew or slow-rank detection.");
  if (std::optional<std::string> custom = CustomCommunicationKernels(r)) L.push_back(*custom);
  if (std::optional<std::string> pipeline = PipelineLimitation(r)) L.push_back(*pipeline);
  bool no_steps = std::any_of(r.steps.begin(), r.steps.end(), [](const Step& s) { return s.step_source == "whole_capture"; });
  if (no_steps)
    L.push_back("No step information (no Step Id, STEP_TIME or ProfilerStep markers): the capture is treated as one "
                "incomplete step; bubble recurrence needs complete steps.");
  if (r.layers.empty())
    L.push_back("No layer anchor from segmentation_rules.json matched: steps are not cut into layers and blocks.");
  bool noshape = std::any_of(r.step_classes.begin(), r.step_classes.end(), [](const ShapeClass& c) { return !c.has_shapes; });
  if (noshape) L.push_back("Operators without input shapes: their steps / layers / blocks are classes of their own.");
  bool no_trace = std::all_of(r.discovery.ranks.begin(), r.discovery.ranks.end(),
                              [](const RankInput& in) { return in.trace_view.empty(); });
  // What the host-side attribution of bubbles did and did not cover.
  const CrossRank& c = r.cross_rank;
  if (no_trace) {
    L.push_back("No trace_view.json: bubbles carry no host-side attribution.");
  } else if (!c.bubbles.empty()) {
    L.push_back(fmt::format(
        "Host-side attribution of {} bubble(s) from trace_view.json host events is a candidate cause per bubble "
        "(the rule that chose it is in evidence/bubble_windows.jsonl), not proof: untraced host work, other "
        "processes and clock offsets between host and device are not seen.{}",
        c.bubbles.size(),
        c.bubbles_without_trace ? fmt::format(" {} bubble(s) of ranks without trace_view.json are not attributed.",
                                              c.bubbles_without_trace)
                                : ""));
  } else if (c.bubbles_without_trace > 0) {
    L.push_back(fmt::format("{} bubble(s) of ranks without trace_view.json carry no host-side attribution.",
                            c.bubbles_without_trace));
  } else {
    L.push_back("No device bubble at or above the bubble threshold on a rank with trace_view.json: nothing was "
                "attributed to the host.");
  }
  for (const DataIssue& i : r.issues)
    if (i.severity != "info")
      L.push_back(fmt::format("{} ({}x): {} (first: {})", i.name, i.count, i.description, i.example));
}

Status RunStage(Stage s, AnalysisResult& r, const AnalyzeOptions& opt, const Rules& rules) {
  switch (s) {
    case Stage::kDiscover: {
      OPTRACE_ASSIGN_OR_RETURN(r.discovery, Discover(opt.roots, r.issues, opt.run));
      r.discovery.rules_fingerprint = rules.fingerprint;
      break;
    }
    case Stage::kNormalize: {
      r.ranks.clear();
      bool split = false;
      OPTRACE_ASSIGN_OR_RETURN(std::vector<RankTable> tables,
                               NormalizeRanks(r.discovery.ranks, rules, r.strings, r.issues, WorkerCount(opt.threads)));
      for (size_t ri = 0; ri < tables.size(); ++ri) {
        const RankInput& in = r.discovery.ranks[ri];
        std::vector<RankTable> parts = SplitDevices(std::move(tables[ri]));
        if (parts.size() > 1) {
          split = true;
          std::string ids;
          for (const RankTable& p : parts) ids += (ids.empty() ? "" : ",") + std::to_string(p.device_id);
          r.issues.push_back({"devices_as_ranks", "info",
                              fmt::format("{} holds {} devices (Device_id {}): one rank per device", in.dir.string(),
                                          parts.size(), ids),
                              1, in.dir.string()});
        }
        for (RankTable& p : parts) r.ranks.push_back(std::move(p));
      }
      // Per-node exports split into devices: the global rank is the capture's own
      // (PROF_*/device_<id>/info.json* "rank_id") when every device has a distinct one, else node
      // (directory) order then device id, the order a node-major rank table uses.
      if (split) {
        std::vector<int> ids;
        for (const RankTable& t : r.ranks)
          ids.push_back(t.kind == InputKind::kMsprof ? MsprofDeviceRankId(t.dir, t.device_id) : -1);
        std::set<int> distinct(ids.begin(), ids.end());
        bool all = distinct.size() == ids.size() && !distinct.count(-1);
        for (size_t i = 0; i < r.ranks.size(); ++i) r.ranks[i].rank = all ? ids[i] : static_cast<int>(i);
        // A node's devices may be separate processes: each reads its own device_<id>/info.json.
        for (RankTable& t : r.ranks) {
          if (t.kind != InputKind::kMsprof || t.device_id < 0) continue;
          ProcessIdentity own;
          ReadProcessIdentity(t.dir, {}, own, t.device_id);
          if (!own.hostname.empty() || own.pid >= 0) t.identity.process = own;
        }
        std::stable_sort(r.ranks.begin(), r.ranks.end(),
                         [](const RankTable& a, const RankTable& b) { return a.rank < b.rank; });
      }
      break;
    }
    case Stage::kSegment: SegmentRanks(r, rules, WorkerCount(opt.threads)); break;
    case Stage::kClassify: ClassifyAll(r, rules, WorkerCount(opt.threads)); break;
    case Stage::kSummarize:
      Summarize(r, rules, /*block_rows=*/opt.mode == Mode::kFull, WorkerCount(opt.threads));
      break;
    case Stage::kCrossRank:
      CrossRankAnalyze(r, rules);
      OPTRACE_RETURN_IF_ERROR(AttributeBubbles(r, rules));
      break;
    case Stage::kDiagnose:
      Diagnose(r, rules);
      AddLimitations(r);
      break;
    case Stage::kReport: break;
  }
  FillIdentity(r);
  return Status::Ok();
}

std::string JoinPaths(const std::vector<std::filesystem::path>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
  return out;
}

// The first stage whose result depends on a rules file (diagnosis_rules.json holds the bubble
// and gap thresholds segment applies).
Stage FirstStageReading(std::string_view rule_file) {
  if (rule_file == "op_taxonomy.json") return Stage::kNormalize;
  if (rule_file == "segmentation_rules.json" || rule_file == "diagnosis_rules.json") return Stage::kSegment;
  if (rule_file == "block_rules.json") return Stage::kClassify;
  if (rule_file == "dixon_q95.json") return Stage::kCrossRank;
  return Stage::kNormalize;  // unknown file: assume everything after discover reads it
}

std::map<std::string, std::string> FingerprintParts(std::string_view fp) {
  std::map<std::string, std::string> out;
  while (!fp.empty()) {
    size_t comma = fp.find(',');
    std::string_view part = fp.substr(0, comma);
    size_t eq = part.find('=');
    out[std::string(part.substr(0, eq))] = eq == std::string_view::npos ? "" : std::string(part.substr(eq + 1));
    fp = comma == std::string_view::npos ? std::string_view() : fp.substr(comma + 1);
  }
  return out;
}

// Stage files reused by --from-stage must come from the same roots and rules as this run:
// otherwise later stages would silently mix another capture's (or rule set's) results in. A
// rules file that changed is fine when only stages from `from` on read it.
Status CheckStagesMatch(const std::filesystem::path& out_dir, const AnalysisResult& r, const AnalyzeOptions& opt,
                        const Rules& rules, Stage from) {
  std::vector<std::filesystem::path> roots;
  for (const auto& p : opt.roots) roots.push_back(ResolveAgainstCwd(p));
  if (!roots.empty() && roots != r.discovery.roots)  // the library may resume without roots
    return UsageError("{}: its stage files were made from root(s) {}, not {}; pass the same roots, re-run without "
                      "--from-stage/--only-stage, or write to another -o OUT",
                      out_dir.string(), JoinPaths(r.discovery.roots), JoinPaths(roots));
  if (!roots.empty() && (r.discovery.capture_count > 1 ? opt.run : 0) != r.discovery.run)
    return UsageError("{}: its stage files were made with --run {}, not --run {}; pass the same --run, re-run without "
                      "--from-stage/--only-stage, or write to another -o OUT",
                      out_dir.string(), r.discovery.run, opt.run);
  std::map<std::string, std::string> was = FingerprintParts(r.discovery.rules_fingerprint),
                                     now = FingerprintParts(rules.fingerprint);
  for (const auto& [file, hash] : now) {
    if (was[file] == hash) continue;
    Stage first = FirstStageReading(file);
    if (first >= from) continue;
    return UsageError("{}: its stage files (from root(s) {}) were made with another {} than this run's, which the "
                      "'{}' stage already used; re-run with --from-stage {} (or without --from-stage/--only-stage)",
                      out_dir.string(), JoinPaths(r.discovery.roots), file, StageName(first), StageName(first));
  }
  return Status::Ok();
}

}  // namespace

std::string_view StageName(Stage s) { return kStageNames[static_cast<int>(s)]; }

std::optional<Stage> ParseStage(std::string_view name) {
  if (name == "cross-rank") return Stage::kCrossRank;
  if (name == "diagnostics") return Stage::kDiagnose;
  for (int i = 0; i < kStageCount; ++i)
    if (kStageNames[i] == name) return static_cast<Stage>(i);
  return std::nullopt;
}

std::map<std::string, double> StageCounts(Stage stage, const AnalysisResult& r) {
  std::map<std::string, double> c;
  switch (stage) {
    case Stage::kDiscover:
      c["ranks"] = r.discovery.ranks.size();
      c["ranks_without_kernels"] = r.discovery.ranks_without_kernels.size();
      break;
    case Stage::kNormalize:
      c["ranks"] = r.ranks.size();
      c["events"] = r.identity.event_count;
      c["strings"] = r.strings.size();
      break;
    case Stage::kSegment:
      c["steps"] = r.steps.size();
      c["layers"] = r.layers.size();
      break;
    case Stage::kClassify:
      c["blocks"] = r.blocks.size();
      c["step_classes"] = r.step_classes.size();
      c["layer_classes"] = r.layer_classes.size();
      c["block_classes"] = r.block_classes.size();
      break;
    case Stage::kSummarize:
      c["operators"] = r.summaries.operators.size();
      c["hccl_rows"] = r.summaries.hccl.size();
      break;
    case Stage::kCrossRank:
      c["aligned_steps"] = r.cross_rank.steps.size();
      c["collectives"] = r.cross_rank.collectives.size();
      break;
    case Stage::kDiagnose:
      c["findings"] = r.findings.size();
      break;
    case Stage::kReport: break;
  }
  return c;
}

Result<AnalysisResult> RunAnalysis(const AnalyzeOptions& opt) {
  Stage to = opt.to == Stage::kReport ? Stage::kDiagnose : opt.to;
  Stage from = opt.from == Stage::kReport ? Stage::kDiagnose : opt.from;
  if (from > to)
    return UsageError("--from-stage {} comes after --to-stage {}; stages run in the order discover, normalize, segment, "
                      "classify, summarize, cross_rank, diagnose, report",
                      StageName(opt.from), StageName(opt.to));
  OPTRACE_ASSIGN_OR_RETURN(Rules rules, LoadRules(opt.rules_dir));
  std::filesystem::path stages_dir;
  if (!opt.out_dir.empty()) stages_dir = ResolveAgainstCwd(opt.out_dir) / "stages";
  if (from > Stage::kDiscover && stages_dir.empty())
    return UsageError("--from-stage {} needs the output directory of an earlier run (-o OUT)", StageName(from));
  AnalysisResult r;
  auto emit = [&](const StageEvent& e) {
    if (opt.progress) opt.progress->OnStage(e);
  };
  using Clock = std::chrono::steady_clock;
  // --from-stage/--only-stage report reuses every stage file (diagnose included): only the
  // writers run.
  const int first_run = opt.from == Stage::kReport ? static_cast<int>(Stage::kReport) : static_cast<int>(from);
  for (int i = 0; i < first_run; ++i) {
    Stage s = static_cast<Stage>(i);
    auto t0 = Clock::now();
    Status st = LoadStage(stages_dir, s, r);
    if (!st.ok()) {
      emit({s, "failed", 0, {}, st.message()});
      return st;
    }
    if (s == Stage::kDiscover) {
      st = CheckStagesMatch(ResolveAgainstCwd(opt.out_dir), r, opt, rules, static_cast<Stage>(first_run));
      if (!st.ok()) {
        emit({s, "failed", 0, {}, st.message()});
        return st;
      }
      // The rules changed only for stages that rerun now: from here on every stage file agrees
      // with the current rules.
      if (r.discovery.rules_fingerprint != rules.fingerprint) {
        r.discovery.rules_fingerprint = rules.fingerprint;
        if (opt.persist_stages) OPTRACE_RETURN_IF_ERROR(SaveStage(stages_dir, Stage::kDiscover, r));
      }
    }
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    emit({s, "loaded", secs, StageCounts(s, r), ""});
  }
  // A full-mode report from a fast run's stage files: the per-block rows were not kept.
  if (opt.mode == Mode::kFull && first_run > static_cast<int>(Stage::kSummarize) && r.summaries.blocks.empty() &&
      !r.blocks.empty())
    SummarizeBlockRows(r, rules);
  // Loaded stages are reported as such (the file carries the timings of the run that made it).
  for (int i = 0; i < first_run; ++i) {
    std::string_view name = StageName(static_cast<Stage>(i));
    for (StageTiming& t : r.timings)
      if (t.stage == name) t.status = "loaded";
  }
  // The stages from `from` on are recomputed: their old files (and those after `to`) would be
  // stale, so none may be reloaded by a later --from-stage.
  if (opt.persist_stages && !stages_dir.empty()) {
    std::error_code ec;
    for (int i = first_run; i < kStageCount; ++i) {
      std::filesystem::remove(StageFilePath(stages_dir, static_cast<Stage>(i)), ec);
      if (ec)
        return InternalError("{}: cannot remove the stale stage file ({}); remove it by hand",
                             StageFilePath(stages_dir, static_cast<Stage>(i)).string(), ec.message());
    }
  }
  // The normalize file written in the background is waited for on every way out (it reads the
  // rank tables of `r`); its error, if any, is this run's.
  std::future<Status> pending_normalize;
  struct JoinPending {
    std::future<Status>& f;
    ~JoinPending() {
      if (f.valid()) f.wait();
    }
  } join_pending{pending_normalize};
  auto finish_normalize_file = [&]() -> Status {
    if (!pending_normalize.valid()) return Status::Ok();
    Status st = pending_normalize.get();
    if (!st.ok()) emit({Stage::kNormalize, "failed", 0, {}, st.message()});
    return st;
  };
  // Timings of this run replace the loaded ones for the stages it runs.
  for (int i = first_run; i <= static_cast<int>(to); ++i) {
    Stage s = static_cast<Stage>(i);
    emit({s, "started", 0, {}, ""});
    ResetPeakRss();
    auto t0 = Clock::now();
    Status st = RunStage(s, r, opt, rules);
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!st.ok()) {
      emit({s, "failed", secs, {}, st.message()});
      return st;
    }
    std::erase_if(r.timings, [&](const StageTiming& t) { return t.stage == StageName(s); });
    r.timings.push_back({std::string(StageName(s)), "ran", secs});
    if (opt.persist_stages && !stages_dir.empty()) {
      if (s == Stage::kNormalize && to > Stage::kNormalize) {
        // Written while the next stages run (the second core is free then).
        pending_normalize = SaveNormalizeStageAsync(stages_dir, r);
      } else {
        Status ss = SaveStage(stages_dir, s, r);
        if (!ss.ok()) {
          emit({s, "failed", secs, {}, ss.message()});
          return ss;
        }
      }
    }
    ReleaseFreedMemory();  // the stage's temporaries, before the next stage's peak
    StageEvent done{s, "done", secs, StageCounts(s, r), ""};
    if (auto m = ReadProcessMemory()) {
      done.rss_mb = m->rss_mb;
      done.peak_rss_mb = m->peak_rss_mb;
    }
    emit(done);
  }
  OPTRACE_RETURN_IF_ERROR(finish_normalize_file());
  for (int i = static_cast<int>(to) + 1; i < kStageCount - 1; ++i) emit({static_cast<Stage>(i), "skipped", 0, {}, ""});
  return r;
}

}  // namespace optrace::analyze
