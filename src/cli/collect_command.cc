// Placeholder until the 'collect' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunCollectCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("collect", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
