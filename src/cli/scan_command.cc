// Placeholder until the 'scan' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunScanCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("scan", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
