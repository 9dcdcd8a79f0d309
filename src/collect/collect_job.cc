#include "collect/collect_job.h"

#include <algorithm>
#include <limits>
#include <map>
#include <span>

#include "collect/perfetto_writer.h"
#include "core/file_io.h"

namespace optrace::collect {
namespace {

Status NoEventsError(const CollectResult& r) {
  return BadInputError("no trace events in {} dump(s) ({} records read): nothing to write; check that the kernel "
                       "ran with ENABLE_MOE_PROFILING=1 and that the map matches",
                       r.inputs.size(), r.records);
}

Status WriteStatsFile(const CollectJob& job, const CollectReport& rep) {
  if (!job.stats_path) return Status::Ok();
  const bool csv = job.stats_path->extension() == ".csv";
  return WriteFileAtomic(ResolveAgainstCwd(*job.stats_path),
                         csv ? StatsToCsv(rep.stats) : StatsToJson(rep.stats, rep.result, job.settings));
}

// The trace and the statistics, fed one rank at a time: collect then holds one rank's intervals
// (and a duration per interval for the percentiles), not all of them.
class TraceSink final : public IntervalSink {
 public:
  TraceSink(const ChromeTraceOptions& opt, const RoleMap* roles, std::ostream& out)
      : writer_(opt, out), stats_(roles), align_(opt.align) {}

  Status Begin(std::span<const SeriesInfo> cores) override {
    writer_.Begin(cores);
    return Status::Ok();
  }

  Status BeginRank(int32_t rank, std::optional<int64_t> earliest) override {
    // The rank's origin as RankOrigins finds it in a whole collection: its earliest interval or
    // instant (Align::kNone: none, every rank counts from 0; kGlobal is never streamed).
    if (align_ == Align::kRank && earliest) origins_[rank] = *earliest;
    return Status::Ok();
  }

  Status TakeIntervals(const Collection& c, std::span<const Interval> intervals) override {
    writer_.Intervals(c, intervals, origins_);
    for (const Interval& iv : intervals) stats_.Add(iv, c.series[iv.series].clock_hz);
    if (!writer_.SourcesUnchanged(c)) {
      sources_moved_ = true;
      return InternalError("a label's source location changed after it was written");  // the job starts again
    }
    return Status::Ok();
  }

  // Instants and otherData. (Sources are settled by then: the last TakeIntervals checked them after
  // the last point was resolved.)
  Status Finish(const Collection& c, std::string_view other_data_json) {
    return writer_.Finish(c, origins_, other_data_json);
  }
  bool sources_moved() const { return sources_moved_; }
  StatsTable TakeStats(const std::vector<LabelInfo>& labels) { return std::move(stats_).Finish(labels); }

 private:
  ChromeTraceWriter writer_;
  StatsAccumulator stats_;
  Align align_;
  std::map<int32_t, int64_t> origins_;
  bool sources_moved_ = false;
};

// The trace written as the ranks are read. nullopt when it cannot be the trace the held path
// writes (a dump read differently than in the layout pass, a label with two B sites met late):
// nothing was left behind and the caller collects again, held.
Result<std::optional<CollectReport>> StreamCollectJob(const CollectJob& job) {
  CollectReport rep;
  Status collect_error;  // returned as the held path returns it, without the trace's path as context
  bool again = false;
  Status written = WriteStreamAtomic(job.trace_path, [&](std::ostream& os) -> Status {
    TraceSink sink(job.trace, job.roles, os);
    CollectOptions options = job.options;
    options.sink = &sink;
    Result<CollectResult> r = Collect(options);
    if (sink.sources_moved() || (r.ok() && r->layout_changed)) {
      again = true;
      return InternalError("collect again, held");
    }
    if (!r.ok()) return collect_error = r.status();
    rep.result = std::move(*r);
    if (rep.result.interval_count == 0 && rep.result.collection.instants.empty()) {
      return collect_error = NoEventsError(rep.result);
    }
    if (job.roles) AddRoleCoverageProblems(rep.result.collection, *job.roles, rep.result.diagnostics);
    OPTRACE_RETURN_IF_ERROR(sink.Finish(rep.result.collection, OtherDataJson(rep.result, job.settings)));
    rep.stats = sink.TakeStats(rep.result.collection.labels);
    return Status::Ok();
  });
  if (again) return std::optional<CollectReport>();
  if (!collect_error.ok()) return collect_error;
  OPTRACE_RETURN_IF_ERROR(written);
  OPTRACE_RETURN_IF_ERROR(WriteStatsFile(job, rep));
  return std::optional<CollectReport>(std::move(rep));
}

Result<CollectReport> HeldCollectJob(const CollectJob& job) {
  CollectReport rep;
  OPTRACE_ASSIGN_OR_RETURN(rep.result, Collect(job.options));
  if (rep.result.interval_count == 0 && rep.result.collection.instants.empty()) return NoEventsError(rep.result);
  // Before the trace's otherData so that the trace carries the same problems as the stats.
  if (job.roles) AddRoleCoverageProblems(rep.result.collection, *job.roles, rep.result.diagnostics);
  const std::string other = OtherDataJson(rep.result, job.settings);
  OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(job.trace_path, [&](std::ostream& os) {
    if (IsPerfettoPath(job.trace_path.string())) return WritePerfettoTrace(rep.result.collection, job.trace, os);
    return WriteChromeTrace(rep.result.collection, job.trace, other, os);
  }));
  rep.stats = ComputeStats(rep.result.collection, job.roles);
  OPTRACE_RETURN_IF_ERROR(WriteStatsFile(job, rep));
  return rep;
}

}  // namespace

Status CheckStatsPath(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  if (ext != ".json" && ext != ".csv") {
    return UsageError("--stats {}: the extension picks the format; use .json or .csv", p.string());
  }
  return Status::Ok();
}

Result<CollectReport> RunCollectJob(const CollectJob& job) {
  if (job.stats_path) OPTRACE_RETURN_IF_ERROR(CheckStatsPath(*job.stats_path));
  Result<std::vector<RankFile>> files = FindRankFiles(job.options.inputs);
  {
    // -o or --stats naming a dump, the map or the roles file would destroy it.
    std::vector<std::filesystem::path> inputs = job.other_inputs;
    if (files.ok())
      for (const RankFile& f : *files) inputs.push_back(f.path);
    OPTRACE_RETURN_IF_ERROR(CheckNotAnInput("-o", job.trace_path, inputs));
    if (job.stats_path) {
      inputs.push_back(job.trace_path);
      OPTRACE_RETURN_IF_ERROR(CheckNotAnInput("--stats", *job.stats_path, inputs));
      if (ResolveAgainstCwd(*job.stats_path) == ResolveAgainstCwd(job.trace_path))
        return UsageError("--stats {} is the trace file too; name another file", job.stats_path->string());
    }
  }
  // Streamed unless the trace needs every rank first (global alignment, the Perfetto writer's
  // interning) or cannot be taken back if collect must start again (a FIFO or a device; a path
  // that cannot be written is left to the held path, which reads the dumps first, as always).
  const bool stream = files.ok() && job.trace.align != Align::kGlobal &&
                      !IsPerfettoPath(job.trace_path.string()) && IsReplaceableOutput(job.trace_path);
  if (stream) {
    OPTRACE_ASSIGN_OR_RETURN(std::optional<CollectReport> rep, StreamCollectJob(job));
    if (rep) return std::move(*rep);
  }
  return HeldCollectJob(job);
}

}  // namespace optrace::collect
