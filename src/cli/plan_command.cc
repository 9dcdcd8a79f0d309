// Placeholder until the 'plan' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunPlanCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("plan", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
