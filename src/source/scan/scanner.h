// Scanning source trees for trace points: the point map (SPEC sections 3 and 6), hash
// collisions between distinct labels, and TRACE_POINT syntax problems.
//
//   ScanOptions opt;                                   // source_root defaults from the roots
//   OPTRACE_ASSIGN_OR_RETURN(ScanResult r, ScanSources({"examples/moe/op_kernel"}, opt));
//   if (!r.collisions.empty()) ...                     // errors: two labels, one label_id
//   std::string json = SerializePointMap(r.map);
//
//   // In-memory sources (the demo scans sources embedded in the binary):
//   ScanSourceTexts({{"op_kernel/moe.cpp", text}}, "/abs/root");
//
// Points: ids are optrace::PointId(LabelId(label)) as the device computes them; each id is
// listed once, at its first occurrence in path order. Paths are relative to the source root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/point_map.h"
#include "core/status.h"
#include "source/lexer/diagnostic.h"
#include "source/lexer/source_set.h"

namespace optrace::source {

struct ScanOptions {
  // Root the map's paths are relative to. Empty: the root directory when there is one root
  // directory, else the deepest directory containing all roots.
  std::filesystem::path source_root;
  // With an entry: only files reachable from it through #include are scanned.
  std::optional<std::filesystem::path> entry;
  std::vector<std::filesystem::path> include_dirs;
};

struct Location {
  std::string file;
  int line = 0, column = 0;
};

// Two distinct labels with the same 31-bit label id: their points cannot be told apart.
struct Collision {
  uint32_t label_id = 0;
  std::string first_label, second_label;
  Location first, second;
};

struct ScanResult {
  PointMap map;
  std::vector<Collision> collisions;
  std::vector<Diagnostic> diagnostics;  // trace-syntax, event-type, rewritten-id problems
  std::shared_ptr<SourceSet> sources;   // what was scanned, lexed, with trace sites
  std::vector<const SourceFile*> files; // the scanned files, path order
  size_t site_count = 0;
  std::vector<std::string> unresolved_includes;  // --entry: quoted includes not found (IncludeTree)

  bool HasErrors() const;
};

Result<ScanResult> ScanSources(const std::vector<std::filesystem::path>& roots, const ScanOptions& options);
Result<ScanResult> ScanSourceTexts(const std::vector<std::pair<std::string, std::string>>& files,
                                   std::string source_root);

// Builds the result from files already loaded in `sources` (used by both entry points and lint).
ScanResult ScanLoaded(std::shared_ptr<SourceSet> sources, std::vector<const SourceFile*> files);

// Default source root for a list of roots (see ScanOptions::source_root).
std::filesystem::path DefaultSourceRoot(const std::vector<std::filesystem::path>& roots);

std::string FormatCollision(const Collision& c);

}  // namespace optrace::source
