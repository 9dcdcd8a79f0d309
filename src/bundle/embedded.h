// The files the binary carries for its users, generated at build time (src/bundle/CMakeLists.txt,
// cmake/embed_sources.cmake). Each table holds (path under its install folder, text), sorted.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace optrace::bundle {

using FileTable = std::vector<std::pair<std::string, std::string>>;

// skills/ of the source tree: "optrace-trace-operator/SKILL.md", ".../references/*.md", evals.
const FileTable& SkillFiles();

// The sample inputs of `optrace samples`: an operator tree, its un-instrumented kernel, three
// profiler captures and the dispatch-evidence exports (README.md lists them).
const FileTable& SampleFiles();

}  // namespace optrace::bundle
