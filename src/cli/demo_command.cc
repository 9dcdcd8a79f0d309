// Placeholder until the 'demo' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunDemoCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("demo", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
