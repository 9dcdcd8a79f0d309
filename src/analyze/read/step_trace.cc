// step_trace_time.csv: the profiler's own per-step decomposition (Computing, Communication (Not
// Overlapped), Overlapped, Free, Stage, Bubble).
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

}  // namespace optrace::analyze
