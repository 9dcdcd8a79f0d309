// optrace skills list | show NAME | install --to DIR [--skill NAME] [--force]
// The agent skills optrace ships, from the binary itself: an agent's skill folder gets them with
// no path into optrace's source tree. Their example data comes from `optrace samples`.
#include <fmt/format.h>

#include "bundle/install_files.h"
#include "bundle/skills.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/file_io.h"

namespace optrace::cli {
namespace {

bool KnownSkill(std::string_view name) {
  for (const bundle::SkillInfo& s : bundle::ListSkills()) {
    if (s.name == name) return true;
  }
  return false;
}

std::string SkillNames() {
  std::string names;
  for (const bundle::SkillInfo& s : bundle::ListSkills()) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

}  // namespace

int RunSkillsCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"The agent skills optrace ships (SKILL.md, references, evals): list them, print one, or install them "
               "into an agent's skill folder",
               "optrace skills"};
  app.require_subcommand(1);
  CLI::App* list = app.add_subcommand("list", "name and description (when to use it) of each skill");
  CLI::App* show = app.add_subcommand("show", "print one skill's SKILL.md");
  std::string show_name;
  show->add_option("name", show_name, "skill name (optrace skills list)")->required();
  CLI::App* install = app.add_subcommand("install", "write the skills into DIR/<skill>/");
  std::string to;
  std::string only;
  bool force = false;
  install->add_option("--to", to, "the agent's skill folder, e.g. ~/.claude/skills or .agents/skills")->required();
  install->add_option("--skill", only, "install only this skill");
  install->add_flag("--force", force, "replace files that differ from the shipped ones (your edits are lost)");
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;

  if (list->parsed()) {
    for (const bundle::SkillInfo& s : bundle::ListSkills()) io.out << s.name << "\n  " << s.description << "\n";
    return kExitOk;
  }
  if (show->parsed()) {
    if (!KnownSkill(show_name)) {
      return ReportError("skills", UsageError("no skill named '{}'; the skills are: {}", show_name, SkillNames()), io);
    }
    for (const auto& [path, text] : bundle::SkillFilesOf(show_name)) {
      if (path == show_name + "/SKILL.md") io.out << text;
    }
    return kExitOk;
  }
  bundle::FileTable files;
  if (!only.empty()) {
    if (!KnownSkill(only)) {
      return ReportError("skills", UsageError("--skill {}: no such skill; the skills are: {}", only, SkillNames()), io);
    }
    files = bundle::SkillFilesOf(only);
  } else {
    files = bundle::SkillFiles();
  }
  const std::filesystem::path dir = ResolveAgainstCwd(to);
  Result<bundle::InstallReport> report = bundle::InstallFiles(files, dir, force);
  if (!report.ok()) return ReportError("skills", report.status(), io);
  const size_t skills = only.empty() ? bundle::ListSkills().size() : 1;
  io.out << fmt::format("{}: {} skill{}, {} files written, {} replaced, {} unchanged\n", to, skills,
                        skills == 1 ? "" : "s", report->written.size(), report->replaced.size(),
                        report->unchanged.size());
  io.out << "each skill's examples take their data from `optrace samples -o DIR`\n";
  return kExitOk;
}

}  // namespace optrace::cli
