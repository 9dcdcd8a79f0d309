#include "evidence/report/kernel_calls.h"

#include <algorithm>
#include <map>

#include "core/csv_reader.h"

namespace optrace::evidence {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Result<KernelCalls> ReadKernelCalls(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty; give the kernel_calls.csv of `optrace analyze ROOT --kernel NAME`", path.string());
  CsvHeader header(rec);
  auto rank_col = header.Find("rank"), name_col = header.Find("name"), dur_col = header.Find("dur_us");
  auto gap_col = header.Find("launch_gap_us"), source_col = header.Find("source_file");
  if (!rank_col || !name_col || !dur_col)
    return BadInputError("{}: no rank, name and dur_us columns; give the kernel_calls.csv of `optrace analyze ROOT "
                         "--kernel NAME`",
                         path.string());
  KernelCalls out;
  out.path = path;
  std::map<int, std::vector<double>> durs, gaps;
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    std::optional<int64_t> rank = ParseCsvInt(rec.Field(*rank_col));
    std::optional<double> dur = ParseCsvNumber(rec.Field(*dur_col));
    if (!rank || !dur)
      return BadInputError("{}:{}: rank and dur_us must be numbers", path.string(), rec.line);
    durs[static_cast<int>(*rank)].push_back(*dur);
    if (gap_col)
      if (std::optional<double> g = ParseCsvNumber(rec.Field(*gap_col))) gaps[static_cast<int>(*rank)].push_back(*g);
    out.names.insert(std::string(TrimCsvField(rec.Field(*name_col))));
    if (source_col && !TrimCsvField(rec.Field(*source_col)).empty())
      out.sources.insert(std::string(TrimCsvField(rec.Field(*source_col))));
    ++out.calls;
  }
  for (auto& [rank, d] : durs) {
    KernelCallsRank r;
    r.rank = rank;
    r.calls = d.size();
    r.max_us = *std::max_element(d.begin(), d.end());
    r.p50_us = Median(d);
    r.launch_gap_p50_us = Median(gaps[rank]);
    out.ranks.push_back(r);
  }
  return out;
}

}  // namespace optrace::evidence
