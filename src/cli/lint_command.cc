// Placeholder until the 'lint' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunLintCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("lint", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
