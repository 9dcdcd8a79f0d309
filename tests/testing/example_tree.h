// The example operator (examples/moe_dispatch_combine) as a test fixture: copied into a TempTree
// at test time, then changed by small named edits, so no test keeps a stored copy that drifts.
//
//   TempTree tree;
//   CopyExampleOperator(tree);        // the operator as shipped (op_kernel, op_host, pybind, ...)
//   CopyUninstrumentedExample(t2);    // its op_kernel/ without MoeTracing lines (a build step)
//   ReplaceInFile(tree, "op_kernel/moe_dispatch_combine.cpp", "a", "b");  // plant a defect
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "testing/temp_tree.h"

namespace optrace::testing {

inline std::filesystem::path ExampleOperatorDir() {
  return std::filesystem::path(OPTRACE_SOURCE_DIR) / "examples" / "moe_dispatch_combine";
}

// Copies the operator's files (not the emulator runner or its CMakeLists.txt) under `under`.
inline void CopyExampleOperator(const TempTree& tree, const std::string& under = "") {
  namespace fs = std::filesystem;
  const fs::path src = ExampleOperatorDir();
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = e.path().lexically_relative(src);
    const std::string first = rel.begin()->string();
    if (first == "runner" || first == "CMakeLists.txt") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    tree.Write((under.empty() ? rel : fs::path(under) / rel).generic_string(), text.str());
  }
}

// One copy of the example operator per test process, for tests that only read it.
inline const std::string& SharedExampleOperator() {
  static TempTree tree;
  static const std::string path = [] {
    CopyExampleOperator(tree);
    return tree.path();
  }();
  return path;
}

// Replaces every occurrence of `from` in `rel`; fails the test when there is none.
inline void ReplaceInFile(const TempTree& tree, const std::string& rel, const std::string& from,
                          const std::string& to) {
  std::string text = tree.Read(rel);
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << rel << " has no " << from;
  for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  tree.Write(rel, text);
}

// The uninstrumented variant of the example's op_kernel/ (tests/testing/make_uninstrumented.py,
// a build step: MoeTracing lines dropped, the profiling plumbing kept), copied under `under`.
inline void CopyUninstrumentedExample(const TempTree& tree, const std::string& under = "") {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(OPTRACE_UNINSTRUMENTED_EXAMPLE_DIR) / "op_kernel";
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    tree.Write((fs::path(under) / "op_kernel" / e.path().lexically_relative(src)).generic_string(), text.str());
  }
}

}  // namespace optrace::testing
