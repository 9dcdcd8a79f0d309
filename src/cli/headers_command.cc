// optrace headers -o DIR [--print]
// Writes optrace_trace.h (the device API in one file, the one `instrument` places) into DIR, for
// those who instrument by hand: the kernel then includes "optrace_trace.h" by a relative path and
// the build needs no include folder of optrace's. An older copy is updated in place; a file of
// that name that optrace did not generate is never overwritten.
#include <fmt/format.h>

#include <optional>

#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "source/plan/single_header.h"

namespace optrace::cli {

int RunHeadersCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Write optrace's device API as one header (optrace_trace.h) into a folder of the operator's tree",
               "optrace headers"};
  std::string out_dir;
  bool print = false;
  app.add_option("-o,--out", out_dir, "folder to write optrace_trace.h into (e.g. the op_kernel/ folder)");
  app.add_flag("--print", print, "print the header to stdout instead");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  if (print == !out_dir.empty()) {
    io.err << "optrace headers: error: give exactly one of -o DIR and --print\n";
    return kExitBadInput;
  }
  const source::SingleHeaderInfo& info = source::EmbeddedSingleHeaderInfo();
  if (print) {
    io.out << source::SingleHeaderText();
    return kExitOk;
  }
  std::filesystem::path dir = ResolveAgainstCwd(out_dir);
  std::filesystem::path path = dir / source::kSingleHeaderName;
  std::error_code ec;
  std::string verb = "wrote";
  if (std::filesystem::exists(path, ec)) {
    Result<std::string> old = ReadFileToString(path);
    if (!old.ok()) return ReportError("headers", old.status(), io);
    std::optional<source::SingleHeaderInfo> was = source::ReadSingleHeaderInfo(*old);
    if (!was) {
      return ReportError("headers",
                         BadInputError("{}: exists and is not optrace's generated header; move it away or pick "
                                       "another folder",
                                       path.string()),
                         io);
    }
    if (*old == source::SingleHeaderText()) {
      io.out << fmt::format("{}: already optrace {} (buffer format v{}); nothing changed\n", out_dir + "/" +
                            std::string(source::kSingleHeaderName), info.version, info.format);
      return kExitOk;
    }
    verb = fmt::format("updated (was optrace {})", was->version);
  } else if (Status st = EnsureDirectory(dir); !st.ok()) {
    return ReportError("headers", st, io);
  }
  if (Status st = WriteFileAtomic(path, source::SingleHeaderText()); !st.ok()) return ReportError("headers", st, io);
  io.out << fmt::format(
      "{}/{}: {}: optrace {}, buffer format v{}\n"
      "include it from the kernel sources by a path relative to each file, e.g. #include \"{}\"; the build needs "
      "no -I for optrace\n",
      out_dir, source::kSingleHeaderName, verb, info.version, info.format, source::kSingleHeaderName);
  return kExitOk;
}

}  // namespace optrace::cli
