// `optrace instrument`: applies a plan by inserting MoeTracing(TRACE_POINT("label", "B"/"E"))
// marks, and `--revert`: removes exactly what was inserted.
//
//   OPTRACE_ASSIGN_OR_RETURN(InstrumentResult r, Instrument(plan));   // computes, writes nothing
//   for (const FileChange& c : r.changes) WriteFileAtomic(c.path, c.after);
//
// Every inserted line ends with `// optrace:auto:<tag>`; a line that had to be changed in place
// (an early `return` that is the body of an unbraced if, a parameter list) carries
// `// optrace:orig-b64:<original line, base64>:<tag>`. RevertText drops the first and restores
// the second, so instrument then revert gives back every file byte for byte. Instrument starts from the reverted text, so running it twice
// equals running it once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "source/lexer/code_structure.h"
#include "source/plan/plan.h"
#include "source/lexer/source_set.h"
#include "source/plan/single_header.h"

namespace optrace::source {

// An inserted line ends with `// optrace:auto:<6 hex>`, the hex a hash of the code before the
// marker with whitespace dropped: revert removes a line only when the hash matches, so user code
// that happens to end in `// optrace:auto` (or an inserted line the user edited since) is never
// deleted, while clang-format's re-spacing (`;  //` -> `; //`) and re-indenting are ignored.
inline constexpr std::string_view kAutoMarker = "  // optrace:auto";
// Lines inserted inside a #define body: a line comment would swallow the continuation.
inline constexpr std::string_view kMacroAutoMarker = " /* optrace:auto */ \\";
// The marker for an inserted `code` line (code = indent + statement).
std::string AutoMarkerFor(std::string_view code, bool in_macro);

// The text without optrace-inserted lines, in-place changes restored. A line whose tag matches
// its code (whitespace ignored, so a formatter's re-indenting and re-spacing, or its breaking a
// long line over up to 17 lines, is still recognised) is optrace's. A tag that matches nothing (the
// line edited since) is kept, and its 1-based line goes to `stale_tags`.
std::string RevertText(std::string_view text, std::vector<int>* stale_tags = nullptr);
bool HasInstrumentation(std::string_view text);

// Where one site's marks go in a file, before they are turned into text.
struct SiteMarks {
  struct Line {
    int before_line = 0;  // insert before this 1-based line (line_count + 1: at the end)
    bool end = false;     // an E mark (E marks go before B marks at the same line, inner first)
    int span = 0;         // size of the range, for ordering marks at the same place
    std::string indent, code;
    bool macro = false;   // inside a #define body: a continuation line
  };
  struct Exit {
    size_t token = 0;  // the return / break / continue
    int span = 0;
    std::string code;  // the E mark
  };
  std::vector<Line> lines;
  std::vector<Exit> exits;
};

// The marks of one site; an error (a message naming file:line) when the code around it does not
// allow line-based insertion (a one-line body, a brace sharing a line with code, ...).
Result<SiteMarks> ComputeSiteMarks(const SourceFile& file, const CodeStructure& cs, const PlanSite& site);

// The line before which a range's first mark goes: the first statement's line after the '{' at
// token `open`, or an earlier preprocessor directive's (never inside an #ifdef branch).
int FirstBodyLine(const SourceFile& f, size_t open, size_t first);

// The MoeTracing statement of a site: MoeTracing(TRACE_POINT("label", "B"), g);
std::string MarkCode(const PlanSite& site, char type);

struct FileChange {
  enum class Kind { kEdit, kCreate, kRemove };
  std::filesystem::path path;
  std::string rel;
  std::string before, after;  // kCreate: before is ""; kRemove: after is ""
  int inserted = 0;  // marks inserted (instrument) or removed lines (revert)
  Kind kind = Kind::kEdit;
};

struct InstrumentResult {
  std::vector<FileChange> changes;  // only files whose text changes
  std::vector<std::string> warnings;
  int sites = 0;                     // sites instrumented
  std::vector<std::string> chain_done;    // profiling-chain edits ("file:line: ...")
  std::vector<std::string> chain_manual;  // profiling-chain layers to finish by hand
  // Where the sources get MoeTracing from: the optrace_trace.h placed in the tree ("op_kernel/
  // optrace_trace.h"), or the tree's own definition ("op_kernel/x_base.h"); "" when no file
  // needed an include.
  std::string trace_header;
  bool tree_defines_tracing = false;  // trace_header is the tree's own, not optrace's
};

// New texts of the files under plan.op_dir for the plan's phase and hot sites. A file whose marks
// reach no definition of MoeTracing gets an include of the tree's own definition (a `*_base.h`
// defining MoeTracing) when the tree has one, else of optrace_trace.h, which is placed (or
// updated in place) in the folder that holds all such files, and spelled relative to each file:
// the team's build needs no include folder of optrace's.
Result<InstrumentResult> Instrument(const Plan& plan);
// New texts of the files under op_dir with all optrace-inserted marks removed, and the
// optrace_trace.h files optrace placed removed (kRemove).
Result<InstrumentResult> RevertInstrumentation(const std::filesystem::path& op_dir);

}  // namespace optrace::source
