// Placeholder until the 'analyze' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunAnalyzeCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("analyze", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
