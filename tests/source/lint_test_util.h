// Helpers for lint rule tests: lint a small tree and list findings as "rule@line".
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/lint.h"
#include "testing/temp_tree.h"

namespace optrace::source {

inline std::vector<std::string> Findings(const LintReport& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics) out.push_back(d.rule + "@" + d.file + ":" + std::to_string(d.line));
  return out;
}

// Lints `files` written into a temporary tree (paths relative to it); `op` lints it as an operator.
inline std::vector<std::string> LintFiles(std::initializer_list<std::pair<std::string, std::string>> files,
                                          bool op = false, LintReport* report = nullptr) {
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
  return Findings(*r);
}

// A function body wrapped in a kernel file with the processing range and the trace header.
inline std::string Kernel(const std::string& body) {
  return "#include \"optrace/trace.h\"\n"
         "extern \"C\" __global__ void k(int n) {\n"
         "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n" +
         body +
         "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
         "}\n";
}

}  // namespace optrace::source
