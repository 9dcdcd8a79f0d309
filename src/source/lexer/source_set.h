// The source files one scan or lint looks at, read and lexed once, with their trace marks.
//
//   SourceSet set("/repo/op");                       // paths in findings are relative to it
//   OPTRACE_ASSIGN_OR_RETURN(const SourceFile* f, set.Load("/repo/op/op_kernel/moe.cpp"));
//   set.AddText("op_kernel/x.h", text);              // in-memory sources (the demo's)
//   set.FindAllTraces();                             // after loading: wrappers cross files
//   for (const SourceFile* f : set.Files()) use(f->rel, f->lex, f->traces);
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "source/lexer/lexer.h"
#include "source/lexer/trace_calls.h"

namespace optrace::source {

struct SourceFile {
  std::filesystem::path path;  // absolute, lexically normal
  std::string rel;             // relative to the set's root (generic separators), or absolute if outside
  std::unique_ptr<std::string> text;  // owned; lex views into it
  LexedFile lex;
  FileTraces traces;
};

class SourceSet {
 public:
  explicit SourceSet(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  // Reads and lexes a file once; later calls return the same object. Error names the file.
  Result<const SourceFile*> Load(const std::filesystem::path& path);
  // Adds an in-memory file at root/rel (replacing one with the same path).
  const SourceFile* AddText(const std::string& rel, std::string text);
  // The loaded file at `path` (absolute or relative to the root), or nullptr.
  const SourceFile* Find(const std::filesystem::path& path) const;
  // Finds macros wrapping TRACE_POINT across all files, then every file's trace marks.
  void FindAllTraces();
  const TraceWrappers& wrappers() const { return wrappers_; }
  // All files, sorted by rel.
  std::vector<const SourceFile*> Files() const;
  size_t LineCount() const;

  std::string Relative(const std::filesystem::path& path) const;
  std::filesystem::path Normalize(const std::filesystem::path& path) const;

 private:
  SourceFile* Insert(const std::filesystem::path& abs, std::string text);

  std::filesystem::path root_;
  std::map<std::string, std::unique_ptr<SourceFile>> by_path_;
  TraceWrappers wrappers_;
};

// C, C++, CUDA and AscendC source extensions that scan and lint read from directories.
bool IsSourceExtension(const std::filesystem::path& path);

// Translation units that may define a kernel: .cpp .cc .cxx .cu, AscendC's .asc and .cce.
bool IsKernelSourceExtension(const std::filesystem::path& path);

// Names of the macros the set's files define with __global__ in their body
// (`#define OP_GLOBAL extern "C" __global__ __aicore__`): a kernel written `OP_GLOBAL void k(...)`.
std::set<std::string, std::less<>> KernelMacros(const SourceSet& set);

// Whether f's code writes a kernel: __global__, or one of `kernel_macros`, in an active region and
// not in a comment or a string. A __global__ in a #define body counts too: the macro generates
// kernels where it is invoked.
bool DefinesKernel(const SourceFile& f, const std::set<std::string, std::less<>>& kernel_macros);

// The kernel entries to use when none is named, from the files (relative paths) that define a
// __global__ function: those outside test, example and sample folders (tests/ut/op_kernel/*.cpp,
// examples/*.asc, ...), the ones under an op_kernel/ folder among them when there are any; only
// when nothing else defines a kernel, the test / example ones. Order is kept.
std::vector<std::string> DefaultKernelEntries(const std::vector<std::string>& kernel_files);

// What one walk of an operator tree finds: its C/C++ sources, and apart from them the files named
// optrace_trace.h (the header `instrument` places: optrace's, not the operator's; whoever reads one
// checks it is optrace's generated header).
struct SourceListing {
  std::vector<std::filesystem::path> sources;         // absolute, sorted
  std::vector<std::filesystem::path> single_headers;  // absolute, sorted
  std::vector<std::filesystem::path> point_set_headers;  // optrace_point_set.h stamps, absolute, sorted
};

// Files under `root` (a file or a directory, recursively, hidden and __pycache__ folders skipped).
// Error when `root` does not exist.
Result<SourceListing> ListOperatorFiles(const std::filesystem::path& root);

// ListOperatorFiles(root).sources.
Result<std::vector<std::filesystem::path>> ListSourceFiles(const std::filesystem::path& root);

}  // namespace optrace::source
