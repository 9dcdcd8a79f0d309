// Placeholder until the 'pipe' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunPipeCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("pipe", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
