// fork / execv with a pipe and a poll deadline (no shell: arguments are passed as they are).
#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace optrace {

ProcessRun RunProcess(const std::string& exe, const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                      bool merge_stderr, size_t max_output) {
  ProcessRun run;
  std::vector<std::string> argv_s{exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return run;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return run;
  }
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(fds[1], 1);
    dup2(merge_stderr || null_fd < 0 ? fds[1] : null_fd, 2);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no race with the child's own call
  close(fds[1]);
  run.started = true;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, static_cast<int>(left.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) {
      run.timed_out = pr == 0;
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: every writer closed the pipe
    size_t room = run.output.size() < max_output ? max_output - run.output.size() : 0;
    size_t take = std::min(room, static_cast<size_t>(n));
    run.output.append(buf, take);
    run.truncated = run.truncated || take < static_cast<size_t>(n);
  }
  close(fds[0]);
  if (run.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!run.timed_out) run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

std::optional<std::string> FindOnPath(std::string_view name, std::string_view path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name.find('/') != std::string_view::npos) {
    fs::path p(name);
    if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
    return std::nullopt;
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string_view::npos) colon = path.size();
    std::string dir(path.substr(start, colon - start));
    start = colon + 1;
    if (dir.empty()) continue;  // an empty entry would mean the cwd: never trusted here
    fs::path p = fs::path(dir) / name;
    if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
  }
  return std::nullopt;
}

}  // namespace optrace
