#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <malloc.h>
#include <cstring>
#include <iostream>

#include "cli/command.h"

namespace {

// Standard output is a pipe whose reader has gone (`optrace pipe ... | head` after its lines):
// the user stopped reading, which is not a failure of the command (a `set -o pipefail` script
// must not break on it). Linux reports a write end without readers as POLLERR.
bool ReaderWentAway() {
  struct stat st;
  if (::fstat(1, &st) != 0 || !S_ISFIFO(st.st_mode)) return false;
  pollfd p{1, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe is seen as a failed write (EPIPE), not a silent death: a full disk is an error,
  // a reader that left is not (ReaderWentAway).
  std::signal(SIGPIPE, SIG_IGN);
#ifdef M_MMAP_THRESHOLD
  // Buffers of 1 MiB and more (event tables, the ranges a large export is parsed in) come from
  // and go back to the OS. glibc would otherwise raise this threshold after the first large free
  // and keep later tables in per-thread arenas that are never returned: peak memory is the budget.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  optrace::cli::CommandIo io{std::cout, std::cerr, ::isatty(2) == 1};
  int rc = optrace::cli::RunOptrace(args, io);
  errno = 0;
  std::cout.flush();
  // `scan SRC > map.json` on a full disk must not exit 0 with a truncated map.
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (ReaderWentAway()) return rc;
    std::cerr << "optrace: error: cannot write standard output" << (errno ? ": " : "") << (errno ? std::strerror(errno) : "")
              << "; the output is incomplete\n";
    return optrace::cli::kExitBadInput;
  }
  return rc;
}
