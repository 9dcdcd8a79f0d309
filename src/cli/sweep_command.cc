// Placeholder until the 'sweep' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunSweepCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("sweep", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
