// Internal to the lint rules: what every rule group sees, and how it reports.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source/code_structure.h"
#include "source/diagnostic.h"
#include "source/include_tree.h"
#include "source/lint.h"
#include "source/source_set.h"

namespace optrace::source {

struct LintContext {
  SourceSet* sources = nullptr;
  std::vector<const SourceFile*> files;  // C/C++ files to lint, path order
  std::optional<IncludeTree> tree;       // from the kernel entry, when there is one
  std::filesystem::path op_dir;          // empty without --op
  std::vector<std::filesystem::path> python_files;
  std::vector<std::filesystem::path> include_dirs;
  std::vector<Diagnostic> diagnostics;

  const CodeStructure& Structure(const SourceFile* f);
  void Report(const SourceFile* f, int line, int column, std::string_view rule, std::string message);
  void Report(const std::string& rel, int line, int column, std::string_view rule, std::string message);

 private:
  std::map<const SourceFile*, std::unique_ptr<CodeStructure>> structures_;
};

void CheckLabels(LintContext& ctx);         // label-style event-type root-label depth pairing early-return label-collision
void CheckCompileSafety(LintContext& ctx);  // trace-syntax brace-balance pp-balance literal-closed header-reachable
                                            // index-scope guard-closed
void CheckCoverage(LintContext& ctx, CoreDensity* density);  // coverage-file density-aic density-aiv
void CheckBinding(LintContext& ctx);        // binding-*
void CheckSamples(LintContext& ctx);        // sample-*

}  // namespace optrace::source
