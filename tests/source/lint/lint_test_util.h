// Helpers for lint rule tests: lint a small tree and list findings as "rule@line".
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/lint/lint.h"
#include "testing/temp_tree.h"

namespace optrace::source {

// Findings as "rule@file:line". Density warnings are left out unless `density` is set: most
// tests lint a kernel far smaller than the 10-30 labels real kernels carry.
inline std::vector<std::string> Findings(const LintReport& r, bool density = false) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics) {
    if (!density && d.rule.rfind("density-", 0) == 0) continue;
    out.push_back(d.rule + "@" + d.file + ":" + std::to_string(d.line));
  }
  return out;
}

// Lints `files` written into a temporary tree (paths relative to it); `op` lints it as an operator.
inline std::vector<std::string> LintFiles(std::initializer_list<std::pair<std::string, std::string>> files,
                                          bool op = false, LintReport* report = nullptr, bool density = false) {
  optrace::testing::TempTree tree(files);
  LintOptions o;
  if (op) {
    o.op_dir = tree.path();
  } else {
    o.paths = {tree.path()};
  }
  auto r = RunLint(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {"lint failed: " + r.status().message()};
  if (report) *report = *r;
  return Findings(*r, density);
}

// A function body wrapped in a kernel file with the buffer set-up, the processing range and the
// trace header. The body starts at line 4.
inline std::string Kernel(const std::string& body) {
  return "#include \"optrace/trace.h\"\n"
         "extern \"C\" __global__ void k(int n, GM_ADDR prof) { OPTRACE_KERNEL_BEGIN();\n"
         "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n" +
         body +
         "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
         "  OPTRACE_KERNEL_END(prof);\n"
         "}\n";
}

}  // namespace optrace::source
