// Runs the built optrace binary (OPTRACE_BINARY) for tests of a layer below the CLI that check a
// command end to end: the test binary then links only its own layer, not all of optrace.
//
//   BinaryResult r = RunBinary({"collect", dir, "-o", out});
//   ASSERT_EQ(r.exit_code, 0) << r.err;
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/file_io.h"

extern char** environ;

namespace optrace::testing {

struct BinaryResult {
  int exit_code = -1;  // 128 + signal when killed by one; -1 when it could not be started
  std::string out;
  std::string err;
};

inline BinaryResult RunBinary(const std::vector<std::string>& argv) {
  static std::atomic<int> counter{0};
  std::filesystem::path base = std::filesystem::temp_directory_path() /
                               ("optrace_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::string out_path = base.string() + ".out", err_path = base.string() + ".err";
  std::vector<std::string> args = {OPTRACE_BINARY};
  args.insert(args.end(), argv.begin(), argv.end());
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  BinaryResult r;
  pid_t pid = 0;
  if (posix_spawn(&pid, OPTRACE_BINARY, &files, nullptr, cargs.data(), environ) == 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&files);
  if (auto out = ReadFileToString(out_path); out.ok()) r.out = std::move(*out);
  if (auto err = ReadFileToString(err_path); err.ok()) r.err = std::move(*err);
  std::error_code ec;
  std::filesystem::remove(out_path, ec);
  std::filesystem::remove(err_path, ec);
  return r;
}

}  // namespace optrace::testing
