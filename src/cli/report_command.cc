// optrace report: the seed-003 evidence report skeleton in Markdown from latency, pipe and stall inputs.
#include <fmt/format.h>

#include <ostream>
#include <sstream>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "cli/latency_flags.h"
#include "core/file_io.h"
#include "evidence/pipe/opprof.h"
#include "evidence/report/report.h"

namespace optrace::cli {

int RunReportCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Write the dispatch-kernel evidence report (Markdown) from latency, msprof op and stall inputs",
               "optrace report"};
  std::vector<std::string> latency, pipe, compare;
  std::string roles_path, stall, output, factor;
  LatencyFlags latency_flags;
  app.add_option("--latency", latency, "dispatch_latency.csv or any CSV with rank/iteration/value columns");
  std::vector<std::string> api_latency;
  app.add_option("--api-latency", api_latency,
                 "the second scope of section 2: the whole dispatch API call per iteration and rank (the same CSV "
                 "layout and column options as --latency)");
  AddLatencyFlags(app, latency_flags);  // the same column options as `optrace latency`
  app.add_option("--compare", compare,
                 "the before run: compared with the --latency file(s) (the after run) in section 4");
  app.add_option("--factor", factor, "the one factor changed between --compare and --latency (section 4)");
  app.add_option("--pipe", pipe, "OPPROF_* directory or msprof op CSVs of one run");
  app.add_option("--roles", roles_path, "roles file for the per-role metrics");
  app.add_option("--stall", stall, "stall-sample CSV (see 'optrace stall --help')");
  std::string env_path;
  app.add_option("--env", env_path, "environment.json written by `optrace env -o DIR` (fills section 1)");
  std::string bytes_path;
  app.add_option("--bytes", bytes_path,
                 "JSON defining the bytes a bandwidth counts (kind, bytes_per_rank or tokens x hidden x dtype "
                 "bytes [x topk], includes_metadata / _local_traffic / _protocol_overhead); without it no "
                 "bandwidth is printed");
  std::string kernel_calls;
  app.add_option("--kernel-calls", kernel_calls,
                 "kernel_calls.csv of `optrace analyze ROOT --kernel NAME`: the kernel's calls as the profiler "
                 "recorded them (section 3.3, system timeline)");
  std::string analysis_path;
  app.add_option("--analysis", analysis_path,
                 "the output folder of `optrace analyze ROOT -o DIR` (or its analysis_summary.json): hostname, node, "
                 "global rank, device id and PID per rank in section 1; default: the folder holding --kernel-calls, "
                 "when it has one");
  std::string join_path;
  app.add_option("--join", join_path,
                 "the --summary JSON of `optrace join`: the kernel's phases inside its task slices of the capture "
                 "(section 3.3, system timeline)");
  app.add_option("-o,--output", output, "write the report here instead of stdout");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  {
    std::vector<std::string> ins = latency;
    ins.insert(ins.end(), api_latency.begin(), api_latency.end());
    ins.insert(ins.end(), pipe.begin(), pipe.end());
    ins.insert(ins.end(), compare.begin(), compare.end());
    for (const std::string& p : {roles_path, stall, env_path, bytes_path, kernel_calls, join_path, analysis_path})
      ins.push_back(p);
    if (auto rc = RefuseOutputsThatAreInputs("report", {{"-o", output}}, ins, io)) return *rc;
  }
  if (!api_latency.empty() && latency.empty()) {
    io.err << "optrace report: error: --api-latency is the second scope of the baseline: give the main kernel's "
              "--latency too\n";
    return kExitBadInput;
  }
  if (latency.empty() && pipe.empty() && stall.empty() && kernel_calls.empty() && join_path.empty()) {
    io.err << "optrace report: error: give at least one of --latency, --pipe, --stall, --kernel-calls, --join\n";
    return kExitBadInput;
  }

  evidence::EvidenceInputs in;
  in.roles_path = roles_path;
  if (!bytes_path.empty()) {
    auto b = evidence::LoadBytesDefinition(ResolveAgainstCwd(bytes_path));
    if (!b.ok()) return ReportError("report", b.status(), io);
    in.bytes = std::move(*b);
  }
  if (!kernel_calls.empty()) {
    auto k = evidence::ReadKernelCalls(ResolveAgainstCwd(kernel_calls));
    if (!k.ok()) return ReportError("report", k.status(), io);
    in.kernel_calls = std::move(*k);
  }
  {
    std::filesystem::path beside;
    if (analysis_path.empty() && !kernel_calls.empty()) {
      beside = ResolveAgainstCwd(kernel_calls).parent_path() / "analysis_summary.json";
      std::error_code ec;
      if (!std::filesystem::is_regular_file(beside, ec)) beside.clear();
    }
    if (!analysis_path.empty() || !beside.empty()) {
      auto m = evidence::ReadRankMap(analysis_path.empty() ? beside : ResolveAgainstCwd(analysis_path));
      if (!m.ok()) return ReportError("report", m.status(), io);
      in.rank_map = std::move(*m);
    }
  }
  if (!join_path.empty()) {
    auto j = evidence::ReadJoinEvidence(ResolveAgainstCwd(join_path));
    if (!j.ok()) return ReportError("report", j.status(), io);
    in.join = std::move(*j);
  }
  if (!env_path.empty()) {
    auto text = ReadFileToString(ResolveAgainstCwd(env_path));
    if (!text.ok()) return ReportError("report", text.status(), io);
    auto env = evidence::EnvironmentFromJson(*text, env_path);
    if (!env.ok()) return ReportError("report", env.status(), io);
    in.environment = std::move(*env);
  }
  if (!latency.empty()) {
    const evidence::LatencyOptions opt = latency_flags.Options();
    auto t = evidence::ReadLatencyCsvFiles(std::vector<std::filesystem::path>(latency.begin(), latency.end()), opt);
    if (!t.ok()) return ReportError("report", t.status(), io);
    if (!compare.empty()) {
      auto before = evidence::ReadLatencyCsvFiles(std::vector<std::filesystem::path>(compare.begin(), compare.end()), opt);
      if (!before.ok()) return ReportError("report", before.status(), io);
      auto c = evidence::CompareLatency(*before, *t, opt);
      if (!c.ok()) return ReportError("report", c.status(), io);
      c->factor = factor;
      in.comparison = std::move(*c);
    }
    evidence::LatencyReport r = evidence::AnalyzeLatency(*t, opt);
    in.latency = evidence::LatencyEvidence{std::move(*t), std::move(r)};
  } else if (!compare.empty()) {
    io.err << "optrace report: error: --compare BEFORE.csv needs --latency AFTER.csv (the run it is compared with)\n";
    return kExitBadInput;
  }
  if (!api_latency.empty()) {
    const evidence::LatencyOptions opt = latency_flags.Options();
    auto t = evidence::ReadLatencyCsvFiles(std::vector<std::filesystem::path>(api_latency.begin(), api_latency.end()), opt);
    if (!t.ok()) return ReportError("report", t.status(), io);
    evidence::LatencyReport r = evidence::AnalyzeLatency(*t, opt);
    in.api_latency = evidence::LatencyEvidence{std::move(*t), std::move(r)};
  }
  if (!factor.empty() && compare.empty()) {
    io.err << "optrace report: warning: --factor has no effect without --compare\n";
  }
  if (!pipe.empty()) {
    std::optional<RoleMap> roles;
    if (!roles_path.empty()) {
      auto r = LoadRoles(roles_path);
      if (!r.ok()) return ReportError("report", r.status(), io);
      roles = std::move(*r);
    }
    auto run = evidence::LoadOpprof(std::vector<std::filesystem::path>(pipe.begin(), pipe.end()));
    if (!run.ok()) return ReportError("report", run.status(), io);
    in.pipe = evidence::SummarizePipe(*run, roles ? &*roles : nullptr);
    if (Status st = evidence::CheckEveryTableYields(*in.pipe); !st.ok()) return ReportError("report", st, io);
  } else if (!roles_path.empty()) {
    io.err << "optrace report: warning: --roles has no effect without --pipe\n";
  }
  if (!stall.empty()) {
    auto t = evidence::ReadStallCsv(stall);
    if (!t.ok()) return ReportError("report", t.status(), io);
    evidence::StallReport r = evidence::AnalyzeStalls(*t);
    in.stall = evidence::StallEvidence{std::move(*t), std::move(r)};
  }
  std::ostringstream md;
  evidence::WriteEvidenceReport(in, md);
  if (output.empty()) {
    io.out << md.str();
  } else {
    Status st = WriteFileAtomic(ResolveAgainstCwd(output), md.str());
    if (!st.ok()) return ReportError("report", st, io);
    io.err << "wrote " << output << "\n";
  }
  return kExitOk;
}

}  // namespace optrace::cli
