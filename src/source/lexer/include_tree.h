// The include tree of an entry file: which files `#include "..."` reaches, following each
// quoted include relative to the including file, then the include directories (angle-bracket
// includes only against the include directories), then, when asked, by name among the files
// already loaded (see IncludeOptions::by_name). Includes in disabled regions are not followed.
//
//   OPTRACE_ASSIGN_OR_RETURN(IncludeTree tree, WalkIncludeTree(set, "op_kernel/moe.cpp", {"include"}));
//   for (const SourceFile* f : tree.files) ...        // entry first, depth-first, each file once
//   for (const IncludeEdge& e : tree.edges) if (!e.to) ...   // system or missing headers
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "source/lexer/source_set.h"

namespace optrace::source {

struct IncludeEdge {
  const SourceFile* from = nullptr;
  int line = 0, column = 0;
  std::string spelled;        // as written between the quotes / brackets
  bool angled = false;
  const SourceFile* to = nullptr;  // nullptr: not found (system header) or outside `limit`
  std::filesystem::path resolved;  // the file found, even when not descended into
  bool by_name = false;            // found by name among the loaded files, not on a search path
};

struct IncludeTree {
  const SourceFile* entry = nullptr;
  std::vector<const SourceFile*> files;  // reachable files, entry first
  std::vector<IncludeEdge> edges;

  bool Contains(const SourceFile* f) const;
  // `#include "x.h"` found neither beside the including file nor in the include directories,
  // as "file:line: x.h" (angle-bracket includes are system headers and not listed).
  std::vector<std::string> UnresolvedQuoted() const;
  // Quoted includes found by name (IncludeOptions::by_name), as "file:line: x.h -> dir/x.h".
  std::vector<std::string> FoundByName() const;
  // Files `f` includes, directly or not (not f itself unless it includes itself).
  std::vector<const SourceFile*> ClosureOf(const SourceFile* f) const;
};

struct IncludeOptions {
  std::vector<std::filesystem::path> include_dirs;
  // When set, files outside this directory are recorded in edges (resolved) but not read.
  std::filesystem::path limit;
  // A quoted include found neither beside its file nor in include_dirs resolves to the one file
  // already loaded in the set (under `limit` when set) whose path ends with it: an operator's
  // build names its header folders with -I (CMake's target_include_directories), which optrace
  // does not read; the tree holds the header, so its code is read. Files under test / example
  // folders are not candidates unless the including file is in one; several candidates: none.
  bool by_name = false;
};

// Loads every reachable file into `set`. Error only when the entry itself cannot be read.
Result<IncludeTree> WalkIncludeTree(SourceSet& set, const std::filesystem::path& entry, const IncludeOptions& options);

// One sentence on FoundByName() lines (of one or several trees; repeats counted once), or "".
std::string FoundByNameSummary(const std::vector<std::string>& found);

// Where `#include spelled` from `from` resolves, or an empty path. In-memory files of `set` count.
std::filesystem::path ResolveInclude(const SourceSet& set, const std::filesystem::path& from, const std::string& spelled,
                                     bool angled, const std::vector<std::filesystem::path>& include_dirs);

}  // namespace optrace::source
