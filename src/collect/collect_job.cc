#include "collect/collect_job.h"

#include "core/file_io.h"
#include "collect/perfetto_writer.h"
#include "core/file_io.h"

namespace optrace::collect {

Status CheckStatsPath(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  if (ext != ".json" && ext != ".csv") {
    return UsageError("--stats {}: the extension picks the format; use .json or .csv", p.string());
  }
  return Status::Ok();
}

Result<CollectReport> RunCollectJob(const CollectJob& job) {
  if (job.stats_path) OPTRACE_RETURN_IF_ERROR(CheckStatsPath(*job.stats_path));
  {
    // -o or --stats naming a dump, the map or the roles file would destroy it.
    std::vector<std::filesystem::path> inputs = job.other_inputs;
    if (Result<std::vector<RankFile>> files = FindRankFiles(job.options.inputs); files.ok())
      for (const RankFile& f : *files) inputs.push_back(f.path);
    OPTRACE_RETURN_IF_ERROR(CheckNotAnInput("-o", job.trace_path, inputs));
    if (job.stats_path) {
      inputs.push_back(job.trace_path);
      OPTRACE_RETURN_IF_ERROR(CheckNotAnInput("--stats", *job.stats_path, inputs));
      if (ResolveAgainstCwd(*job.stats_path) == ResolveAgainstCwd(job.trace_path))
        return UsageError("--stats {} is the trace file too; name another file", job.stats_path->string());
    }
  }
  CollectReport rep;
  OPTRACE_ASSIGN_OR_RETURN(rep.result, Collect(job.options));
  if (rep.result.collection.intervals.empty() && rep.result.collection.instants.empty()) {
    return BadInputError("no trace events in {} dump(s) ({} records read): nothing to write; check that the kernel "
                         "ran with ENABLE_MOE_PROFILING=1 and that the map matches",
                         rep.result.inputs.size(), rep.result.records);
  }
  // Before the trace's otherData so that the trace carries the same problems as the stats.
  if (job.roles) AddRoleCoverageProblems(rep.result.collection, *job.roles, rep.result.diagnostics);
  const std::string other = OtherDataJson(rep.result, job.settings);
  OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(job.trace_path, [&](std::ostream& os) {
    if (IsPerfettoPath(job.trace_path.string())) return WritePerfettoTrace(rep.result.collection, job.trace, os);
    return WriteChromeTrace(rep.result.collection, job.trace, other, os);
  }));
  rep.stats = ComputeStats(rep.result.collection, job.roles);
  if (job.stats_path) {
    const bool csv = job.stats_path->extension() == ".csv";
    OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(
        ResolveAgainstCwd(*job.stats_path),
        csv ? StatsToCsv(rep.stats) : StatsToJson(rep.stats, rep.result, job.settings)));
  }
  return rep;
}

}  // namespace optrace::collect
