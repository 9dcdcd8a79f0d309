#include <unistd.h>

#include <iostream>

#include "cli/command.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  optrace::cli::CommandIo io{std::cout, std::cerr, ::isatty(2) == 1};
  int rc = optrace::cli::RunOptrace(args, io);
  std::cout.flush();
  return rc;
}
