// optrace timeline: busy time per pipe, MTE/compute overlap, instruction durations and ICache
// misses from msOpProf PipeTimeline / InstrTimeline / simulator traces, and one merged trace.
#include <fmt/format.h>

#include <ostream>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "evidence/timeline/timeline.h"

namespace optrace::cli {

int RunTimelineCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Per-core pipe busy time (union of intervals), MTE/compute overlap, instruction durations and ICache "
               "misses from msOpProf PipeTimeline, InstrTimeline and simulator traces",
               "optrace timeline"};
  std::vector<std::string> inputs;
  std::string roles_path, format = "text", trace_out;
  app.add_option("input", inputs, "trace.json files, timeline CSVs or OPPROF_* directories")->required();
  app.add_option("--roles", roles_path, "roles file: one 'name: aic|aiv A-B[,C]' per line (default: one role per core kind)");
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  app.add_option("-o,--output", trace_out, "write one Chrome/Perfetto JSON trace merging every input");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  {
    std::vector<std::string> ins = inputs;
    ins.push_back(roles_path);
    if (auto rc = RefuseOutputsThatAreInputs("timeline", {{"-o", trace_out}}, ins, io)) return *rc;
  }

  std::optional<RoleMap> roles;
  if (!roles_path.empty()) {
    auto r = LoadRoles(roles_path);
    if (!r.ok()) return ReportError("timeline", r.status(), io);
    roles = std::move(*r);
  }
  std::vector<std::filesystem::path> paths(inputs.begin(), inputs.end());
  auto run = evidence::LoadTimelines(paths);
  if (!run.ok()) return ReportError("timeline", run.status(), io);
  const RoleMap* role_ptr = roles ? &*roles : nullptr;
  if (!trace_out.empty()) {
    std::vector<std::filesystem::path> resolved;
    for (const auto& p : paths) resolved.push_back(ResolveAgainstCwd(p));
    if (Status st = CheckNotAnInput("-o", ResolveAgainstCwd(trace_out), resolved); !st.ok()) {
      return ReportError("timeline", st, io);
    }
    Status st = WriteStreamAtomic(trace_out, [&](std::ostream& os) {
      evidence::WriteMergedTrace(*run, role_ptr, os);
      return os ? Status::Ok() : IoError("{}: write failed", trace_out);
    });
    if (!st.ok()) return ReportError("timeline", st, io);
  }
  evidence::TimelineSummary s = evidence::SummarizeTimeline(*run, role_ptr);
  if (format == "json") {
    io.out << JsonText(evidence::TimelineJson(s)) << "\n";
  } else {
    evidence::WriteTimelineText(s, io.out);
  }
  if (!s.unassigned.empty()) {
    io.err << fmt::format("optrace timeline: warning: no role claims {}\n", s.unassigned);
  }
  return kExitOk;
}

}  // namespace optrace::cli
