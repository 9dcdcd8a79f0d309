// Placeholder until the 'instrument' command lands; replaced by its implementation.
#include "cli/commands.h"

namespace optrace::cli {

int RunInstrumentCommand(const CommandArgs&, CommandIo& io) {
  return ReportError("instrument", InternalError("not built yet"), io);
}

}  // namespace optrace::cli
