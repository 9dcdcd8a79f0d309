// Placeholder until the 'report' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunReportCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("report", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
