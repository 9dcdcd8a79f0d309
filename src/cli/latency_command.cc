// Placeholder until the 'latency' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunLatencyCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("latency", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
