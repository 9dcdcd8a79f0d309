// What every report writer needs besides the model: the mode, the generator string and the
// map of artifacts the report set writes (known before any file is written, so each document
// can point at the others).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace optrace::analyze {
struct Efficiency;
struct KernelFocus;
struct Rules;
}  // namespace optrace::analyze

namespace optrace::analyze::report {

struct Artifact {
  std::string key;   // "report_md", "operator_summary_csv", ...
  std::string file;  // path relative to the output directory
  std::string what;  // one line for the reader
};

struct ReportContext {
  std::string mode = "fast";           // fast | full
  std::string generator = "optrace";   // "optrace 0.1.0"
  std::vector<Artifact> artifacts;
  // Computed by WriteReport before any writer runs (efficiency.h); never null inside the writers
  // WriteReport calls. Writers called directly (tests) may pass a context without them.
  const Efficiency* efficiency = nullptr;
  const Rules* rules = nullptr;
  const KernelFocus* kernel_focus = nullptr;  // --kernel NAME, when given
  // BuildReportView leaves the view's "inspector" null: RenderHtml writes it into the page as it
  // is made (WriteReport). Unset: the view holds the whole inspector.
  bool stream_inspector = false;
};

}  // namespace optrace::analyze::report
