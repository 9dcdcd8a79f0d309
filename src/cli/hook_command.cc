// Placeholder until the 'hook' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunHookCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("hook", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
