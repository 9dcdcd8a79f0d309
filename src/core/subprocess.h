// Runs a program without a shell, with a deadline, and collects its output:
//
//   ProcessRun r = RunProcess("/usr/bin/git", {"-C", dir, "rev-parse", "HEAD"},
//                             std::chrono::seconds(5), /*merge_stderr=*/false);
//   if (r.started && !r.timed_out && r.exit_code == 0) use(r.output);
//
// The child gets stdin from /dev/null and its own process group, so a hanging tool costs at
// most the timeout and a kill leaves nothing behind; output beyond `max_output` bytes is read
// and dropped (the child never blocks on a full pipe).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

struct ProcessRun {
  bool started = false;    // false: fork / pipe failed (a program that cannot be executed exits 127)
  bool timed_out = false;  // killed at the deadline (exit_code is then -1)
  int exit_code = -1;      // 128 + signal when the program was killed by one
  std::string output;      // stdout (and stderr with merge_stderr), at most max_output bytes
  bool truncated = false;  // output was longer than max_output
};

ProcessRun RunProcess(const std::string& exe, const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                      bool merge_stderr, size_t max_output = 64 * 1024);

// The first executable `name` in the ':'-separated `path` (empty entries, the cwd, are never
// trusted); an absolute or relative `name` with a '/' is taken as it is when executable.
std::optional<std::string> FindOnPath(std::string_view name, std::string_view path);

}  // namespace optrace
