// optrace scan SRC... -o point_map.json [--entry FILE] [-I DIR] [--root DIR] [--modify [--dry-run]]
// Thin layer over source::ScanSources / RewriteTracePoints: flags, printing, exit codes.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "cli/cli_parse.h"
#include "core/json_text.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/scan/modify.h"
#include "source/scan/point_set_stamp.h"
#include "source/lint/lint.h"
#include "source/scan/scanner.h"

namespace optrace::cli {
namespace {
namespace fs = std::filesystem;
using source::ScanResult;

nlohmann::json ScanJson(const ScanResult& r, const std::string& output, int rewritten) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["source_root"] = r.map.source_root;
  j["files"] = r.files.size();
  j["sites"] = r.site_count;
  j["points"] = r.map.points.size();
  std::set<std::string> labels;
  for (const auto& [id, p] : r.map.points) labels.insert(p.label);
  j["labels"] = labels.size();
  j["output"] = output;
  j["rewritten_files"] = rewritten;
  j["unresolved_includes"] = r.unresolved_includes;
  j["collisions"] = nlohmann::json::array();
  for (const auto& c : r.collisions) {
    j["collisions"].push_back({{"label_id", c.label_id},
                               {"labels", {c.first_label, c.second_label}},
                               {"locations",
                                {{{"file", c.first.file}, {"line", c.first.line}, {"column", c.first.column}},
                                 {{"file", c.second.file}, {"line", c.second.line}, {"column", c.second.column}}}}});
  }
  j["diagnostics"] = nlohmann::json::array();
  for (const auto& d : r.diagnostics) {
    j["diagnostics"].push_back({{"file", d.file}, {"line", d.line}, {"column", d.column},
                                {"severity", source::SeverityName(d.severity)}, {"rule", d.rule},
                                {"message", d.message}});
  }
  return j;
}

}  // namespace

int RunScanCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Scan C/C++/CUDA/AscendC sources for TRACE_POINT marks and write point_map.json", "optrace scan"};
  std::vector<std::string> roots, include_dirs;
  std::string output, entry, root, format = "text";
  bool modify = false, dry_run = false, stamp = false;
  app.add_option("SRC", roots, "source files or directories (recursively: .c .cc .cpp .h .hpp .cu .cuh ...)");
  app.add_option("-o,--output", output, "point map to write (default: print to stdout)");
  app.add_option("--entry", entry, "scan only the include tree of this file (follows #include \"...\")");
  app.add_option("-I,--include-dir", include_dirs, "directory searched for #include after the including file's");
  app.add_option("--root", root, "directory the map's paths are relative to (default: the SRC directory)");
  app.add_flag("--modify", modify, "rewrite each TRACE_POINT(...) into its integer id, original kept in a comment");
  app.add_flag("--dry-run", dry_run, "with --modify: print a unified diff, write nothing");
  app.add_flag("--stamp-fingerprint", stamp,
               "write optrace_point_set.h (the point set's fingerprint) beside each optrace_trace.h: the "
               "binary built next stores it in every slot, and collect checks the map against it");
  app.add_option("--format", format, "summary format")->check(CLI::IsMember({"text", "json"}));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (roots.empty() && entry.empty()) {
    io.err << "optrace scan: error: give source files or directories, or --entry FILE\n";
    return kExitBadInput;
  }
  if (stamp && (roots.empty() || dry_run)) {
    io.err << "optrace scan: error: --stamp-fingerprint needs the source directories (not --entry alone) and no "
              "--dry-run\n";
    return kExitBadInput;
  }
  if (dry_run && !modify) {
    io.err << "optrace scan: error: --dry-run only applies to --modify\n";
    return kExitBadInput;
  }
  source::ScanOptions options;
  if (!entry.empty()) options.entry = fs::path(entry);
  for (const auto& d : include_dirs) options.include_dirs.emplace_back(d);
  if (!root.empty()) options.source_root = ResolveAgainstCwd(root);
  std::vector<fs::path> paths(roots.begin(), roots.end());
  Result<ScanResult> scanned = source::ScanSources(paths, options);
  if (!scanned.ok()) return ReportError("scan", scanned.status(), io);
  const ScanResult& r = *scanned;

  for (const auto& c : r.collisions) io.err << source::FormatCollision(c) << "\n";
  for (const auto& d : r.diagnostics) io.err << source::FormatDiagnostic(d) << "\n";
  if (r.HasErrors()) {
    io.err << fmt::format("optrace scan: {} error(s); no point map written\n",
                          r.collisions.size() + r.diagnostics.size());
    if (format == "json") io.out << JsonText(ScanJson(r, "", 0)) << "\n";
    return kExitFindings;
  }

  if (!output.empty()) {
    std::vector<fs::path> sources;
    for (const source::SourceFile* f : r.files) sources.push_back(f->path);
    if (Status st = CheckNotAnInput("-o", ResolveAgainstCwd(output), sources); !st.ok()) return ReportError("scan", st, io);
  }
  int rewritten = 0;
  if (modify && !dry_run) {
    // Every file is checked before any is rewritten: a read-only one must not leave the tree half done.
    for (const source::SourceFile* f : r.files) {
      if (source::RewriteTracePoints(*f) == *f->text) continue;
      if (Status st = CheckWritable(f->path); !st.ok()) return ReportError("scan", st, io);
    }
  }
  if (modify) {
    for (const source::SourceFile* f : r.files) {
      std::string after = source::RewriteTracePoints(*f);
      if (after == *f->text) continue;
      ++rewritten;
      if (dry_run) {
        io.out << source::UnifiedDiff(f->rel, *f->text, after);
        continue;
      }
      Status st = WriteFileAtomic(f->path, after);
      if (!st.ok()) return ReportError("scan", st, io);
    }
  }
  int stamped = 0;
  if (stamp) {
    Result<int> n = source::StampPointSet(std::vector<fs::path>(roots.begin(), roots.end()), r.map);
    if (!n.ok()) return ReportError("scan", n.status(), io);
    stamped = *n;
  }
  std::string map_json = SerializePointMap(r.map);
  if (!output.empty() && !dry_run) {
    fs::path out = ResolveAgainstCwd(output);
    if (out.has_parent_path()) {
      Status st = EnsureDirectory(out.parent_path());
      if (!st.ok()) return ReportError("scan", st, io);
    }
    Status st = WriteFileAtomic(out, map_json);
    if (!st.ok()) return ReportError("scan", st, io);
  } else if (output.empty() && !dry_run) {
    if (format == "json") {
      io.err << "optrace scan: error: --format json needs -o FILE (the summary goes to stdout)\n";
      return kExitBadInput;
    }
    io.out << map_json;
    return kExitOk;
  }
  if (format == "json") {
    nlohmann::json j = ScanJson(r, output, rewritten);
    j["point_set_fingerprint"] = fmt::format("0x{:016x}", PointSetFingerprint(r.map));
    if (stamp) j["stamped"] = stamped;
    io.out << JsonText(j) << "\n";
    return kExitOk;
  }
  std::set<std::string> labels;
  for (const auto& [id, p] : r.map.points) labels.insert(p.label);
  std::ostream& summary = dry_run ? io.err : io.out;
  summary << fmt::format("scanned {} file(s): {} trace point(s), {} distinct id(s), {} label(s)", r.files.size(),
                         r.site_count, r.map.points.size(), labels.size());
  if (modify) summary << fmt::format("; {} {} file(s)", dry_run ? "would rewrite" : "rewrote", rewritten);
  if (!output.empty() && !dry_run) summary << " -> " << output;
  summary << "\n";
  if (stamp) {
    summary << fmt::format("point set fingerprint 0x{:016x} stamped beside {} optrace_trace.h\n",
                           PointSetFingerprint(r.map), stamped);
    if (stamped == 0)
      io.err << "optrace scan: note: no optrace_trace.h under the scanned folders: nothing stamped (slots will say "
                "fingerprint unknown)\n";
  }
  if (!r.unresolved_includes.empty()) io.err << "optrace scan: " << source::UnresolvedIncludesNote(r.unresolved_includes);
  return kExitOk;
}

}  // namespace optrace::cli
