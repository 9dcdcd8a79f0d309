// optrace explain -o DIR: explain.md, explain.json, the CSV tables and explain.html.
#include <fmt/format.h>

#include <sstream>

#include "core/file_io.h"
#include "core/json_text.h"
#include "explain/explain.h"
#include "explain/explain_files.h"
#include "explain/explain_html.h"

namespace optrace::explain {
namespace {

std::string Csv(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Num(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

Status WriteExplainFiles(const Explanation& e, const std::filesystem::path& dir) {
  OPTRACE_RETURN_IF_ERROR(EnsureDirectory(dir));
  nlohmann::ordered_json j = ExplanationJson(e);
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain.json", JsonText(j) + "\n"));
  std::ostringstream md;
  WriteExplainMarkdown(e, md);
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain.md", md.str()));
  std::ostringstream html;
  WriteExplainHtml(j, html);
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain.html", html.str()));

  std::ostringstream phases;
  phases << "group,phase,category,leaf,count,total_us,union_us,share_of_wall,core_p50_us,core_max_us,slowest_core,"
            "slowest_core_rank,slowest_rank\n";
  for (const PhaseRow& p : e.phases)
    phases << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", Csv(p.group), Csv(p.phase), Csv(p.category),
                          p.leaf ? "true" : "false", p.count, Num(p.total_us), Num(p.union_us), Num(p.share_of_wall),
                          Num(p.core_p50_us), Num(p.core_max_us), Csv(p.slowest_core), p.slowest_core_rank,
                          p.slowest_rank);
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain_phases.csv", phases.str()));
  std::ostringstream cats;
  cats << "group,category,union_us,share_of_wall\n";
  for (const CategoryRow& c : e.categories)
    cats << fmt::format("{},{},{},{}\n", Csv(c.group), Csv(c.category), Num(c.union_us), Num(c.share_of_wall));
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain_categories.csv", cats.str()));
  std::ostringstream ov;
  ov << "group,a,b,overlap_us,share_of_a,share_of_b\n";
  for (const OverlapRow& o : e.overlaps)
    ov << fmt::format("{},{},{},{},{},{}\n", Csv(o.group), Csv(o.a), Csv(o.b), Num(o.overlap_us), Num(o.share_of_a),
                      Num(o.share_of_b));
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain_overlaps.csv", ov.str()));
  std::ostringstream cr;
  cr << "group,parent,child,times,of\n";
  for (const CriticalRow& c : e.critical)
    cr << fmt::format("{},{},{},{},{}\n", Csv(c.group), Csv(c.parent), Csv(c.child), c.times, c.of);
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain_critical.csv", cr.str()));
  std::ostringstream fs;
  fs << "id,type,severity,summary,cores,ranks\n";
  for (const ExplainFinding& f : e.findings)
    fs << fmt::format("{},{},{},{},{},{}\n", f.id, f.type, f.severity, Csv(f.summary), Csv(fmt::format("{}", fmt::join(f.cores, " "))),
                      Csv(fmt::format("{}", fmt::join(f.ranks, " "))));
  OPTRACE_RETURN_IF_ERROR(WriteFileAtomic(dir / "explain_findings.csv", fs.str()));
  return Status::Ok();
}

}  // namespace optrace::explain
