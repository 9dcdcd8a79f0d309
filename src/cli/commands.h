// Entry points of the subcommands; each lives in <name>_command.cc.
#pragma once

#include "cli/command.h"

namespace optrace::cli {

int RunDemoCommand(const CommandArgs& args, CommandIo& io);
int RunCollectCommand(const CommandArgs& args, CommandIo& io);
int RunInspectCommand(const CommandArgs& args, CommandIo& io);
int RunScanCommand(const CommandArgs& args, CommandIo& io);
int RunLintCommand(const CommandArgs& args, CommandIo& io);
int RunHookCommand(const CommandArgs& args, CommandIo& io);
int RunPlanCommand(const CommandArgs& args, CommandIo& io);
int RunInstrumentCommand(const CommandArgs& args, CommandIo& io);
int RunHeadersCommand(const CommandArgs& args, CommandIo& io);
int RunSkillsCommand(const CommandArgs& args, CommandIo& io);
int RunSamplesCommand(const CommandArgs& args, CommandIo& io);
int RunAnalyzeCommand(const CommandArgs& args, CommandIo& io);
int RunSweepCommand(const CommandArgs& args, CommandIo& io);
int RunCompareCommand(const CommandArgs& args, CommandIo& io);
int RunLatencyCommand(const CommandArgs& args, CommandIo& io);
int RunPipeCommand(const CommandArgs& args, CommandIo& io);
int RunStallCommand(const CommandArgs& args, CommandIo& io);
int RunTimelineCommand(const CommandArgs& args, CommandIo& io);
int RunReportCommand(const CommandArgs& args, CommandIo& io);
int RunEnvCommand(const CommandArgs& args, CommandIo& io);
int RunExplainCommand(const CommandArgs& args, CommandIo& io);
int RunJoinCommand(const CommandArgs& args, CommandIo& io);

}  // namespace optrace::cli
