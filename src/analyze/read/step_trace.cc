// step_trace_time.csv: the profiler's own per-step decomposition (Computing, Communication (Not
// Overlapped), Overlapped, Free, Stage, Bubble); api_statistic.csv: host API calls of the capture.
#include "analyze/read/normalize.h"
#include "core/csv_reader.h"

namespace optrace::analyze {

Status ReadStepTraceCsv(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return Status::Ok();
  CsvHeader h(rec);
  auto step = h.Find("Step");
  if (!step) return BadInputError("{}:1: missing column 'Step'; expected a step_trace_time.csv", path.string());
  auto comp = h.Find("Computing"), cno = h.Find("Communication(Not Overlapped)"), ov = h.Find("Overlapped"),
       comm = h.Find("Communication"), fr = h.Find("Free"), stage = h.Find("Stage"), bub = h.Find("Bubble"),
       prep = h.Find("Preparing");
  auto get = [&](const std::optional<size_t>& c) {
    if (!c) return kMissing;
    auto v = ParseCsvNumber(rec.Field(*c));
    return v ? *v : kMissing;
  };
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    StepTraceRow r;
    auto s = ParseCsvInt(rec.Field(*step));
    r.step_id = s ? *s : -1;
    r.computing_us = get(comp);
    r.comm_not_overlapped_us = get(cno);
    r.overlapped_us = get(ov);
    r.communication_us = get(comm);
    r.free_us = get(fr);
    r.stage_us = get(stage);
    r.bubble_us = get(bub);
    r.preparing_us = get(prep);
    table.step_trace.push_back(r);
  }
  return Status::Ok();
}

Status ReadApiStatisticCsv(const std::filesystem::path& path, RankTable& table) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path, 64 << 10));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return Status::Ok();
  CsvHeader h(rec);
  auto name = h.Find("API Name"), time = h.Find("Time(us)"), count = h.Find("Count"), level = h.Find("Level");
  if (!name || !time || !count)
    return BadInputError("{}:1: missing column 'API Name', 'Time(us)' or 'Count'; expected an api_statistic.csv",
                         path.string());
  table.api_statistic = path.string();
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    ApiStat a;
    a.name = std::string(rec.Field(*name));
    if (level) a.level = std::string(rec.Field(*level));
    auto t = ParseCsvNumber(rec.Field(*time));
    auto c = ParseCsvInt(rec.Field(*count));
    a.time_us = t ? *t : kMissing;
    a.count = c && *c > 0 ? *c : 0;
    a.row = static_cast<uint32_t>(rec.line);
    table.api_stats.push_back(std::move(a));
  }
  return Status::Ok();
}

}  // namespace optrace::analyze
