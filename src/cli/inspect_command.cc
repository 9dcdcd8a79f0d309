// Placeholder until the 'inspect' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunInspectCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("inspect", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
