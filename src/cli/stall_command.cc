// Placeholder until the 'stall' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunStallCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("stall", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
