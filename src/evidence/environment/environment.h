// What the machine says about itself, for section 1 of the evidence report (`optrace env`).
//
//   EnvironmentOptions opt = DefaultEnvironmentOptions();   // real roots, $PATH, $ASCEND_*
//   opt.source_dir = "repo/";  opt.fields_file = "run.yaml";
//   OPTRACE_ASSIGN_OR_RETURN(EnvironmentInfo env, ProbeEnvironment(opt));
//   WriteEnvironmentMarkdown(env, out);  std::string json = EnvironmentJsonText(env);
//
// Every item carries its value and where it came from (a file and key, a command); an item the
// probes did not find has no value and says what was looked at: absence is never an error. Only
// the files the user names (--fields, --compile-commands, --build-log, --source) fail the probe
// when unreadable or malformed. Tools run with a timeout and never through a shell. Every root
// path and the PATH used to find tools are options, so tests run on fake roots.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::evidence {

// environment.json "schema_version" (docs/evidence.md, "Environment (optrace env)").
inline constexpr int kEnvironmentSchemaVersion = 1;

struct EnvItem {
  std::string key;                   // stable id: "os.name", "cann.version", ...
  std::string label;                 // for people: "OS", "CANN toolkit version"
  std::optional<std::string> value;  // nullopt: not found
  std::string from;                  // the file and key or command; when not found, what was looked at
};

struct EnvField {  // one user field of --fields (launch parameters the machine cannot know)
  std::string key;
  std::string value;
};

struct EnvironmentInfo {
  std::string probed_at;  // UTC, ISO 8601
  std::vector<EnvItem> items;
  std::vector<EnvField> fields;  // file order; known keys spelled canonically (KnownFieldKeys)
  std::string fields_from;       // the --fields file, "" when none
  std::string origin;            // where this was read from (environment.json), not serialized

  const EnvItem* Find(std::string_view key) const;
  std::optional<std::string> Value(std::string_view key) const;  // nullopt when absent or not found
  std::optional<std::string> Field(std::string_view key) const;
};

struct EnvironmentOptions {
  std::filesystem::path os_release = "/etc/os-release";
  std::filesystem::path proc_dir = "/proc";  // cpuinfo, sys/kernel/osrelease
  // CANN toolkit roots in order ($ASCEND_HOME_PATH, $ASCEND_TOOLKIT_HOME, the default installs).
  std::vector<std::filesystem::path> toolkit_roots;
  std::filesystem::path driver_dir = "/usr/local/Ascend/driver";
  std::filesystem::path firmware_dir = "/usr/local/Ascend/firmware";
  std::string path;  // ':'-separated directories searched for npu-smi, msprof, msopprof, git
  std::chrono::milliseconds tool_timeout{5000};
  int help_lines = 3;  // first non-empty lines of `--help` kept

  // The trace switches seed 003 asks a baseline to record (a kernel that exports timing CSVs as
  // it runs is slower than one that does not): name -> value, only those set in the environment.
  std::map<std::string, std::string> switches;

  std::filesystem::path source_dir;        // --source: git commit and dirty state
  std::filesystem::path compile_commands;  // --compile-commands
  std::filesystem::path build_log;         // --build-log
  std::filesystem::path fields_file;       // --fields
};

// The real machine: /etc/os-release, /proc, $PATH, $ASCEND_HOME_PATH, $ASCEND_TOOLKIT_HOME,
// /usr/local/Ascend/{ascend-toolkit/latest,cann,driver,firmware}.
EnvironmentOptions DefaultEnvironmentOptions();

// Fails only for the user's files: --fields / --compile-commands / --build-log unreadable or
// malformed, --source not a directory (the message names the file).
Result<EnvironmentInfo> ProbeEnvironment(const EnvironmentOptions& opt);

// The keys of --fields that the report knows: nodes, cards_per_node, transport, aiv_count,
// T, H, K, E, dtype, routing, seed. Other keys are kept as they are.
const std::vector<std::string_view>& KnownFieldKeys();

// --fields text: a JSON object, or "key: value" lines ('#' comments, blank lines, quotes stripped).
Result<std::vector<EnvField>> ParseFields(std::string_view text, std::string_view path);

// Compiler and the -O / -g / -D / --cce-soc-version (and --cce-aicore-arch, --npu-arch) flags,
// deduplicated in first-seen order.
struct CompileFlags {
  std::vector<std::string> compilers;
  std::vector<std::string> flags;
};
Result<CompileFlags> CompileFlagsFromCompileCommands(std::string_view json_text, std::string_view path);
CompileFlags CompileFlagsFromBuildLog(std::string_view log_text);

// `npu-smi info` output: NPU names of the device table and the "Version:" of the header.
struct NpuSmiInfo {
  std::vector<std::string> names;  // distinct, in order
  int npu_count = 0;
  std::optional<std::string> version;
};
NpuSmiInfo ParseNpuSmiInfo(std::string_view text);

std::string EnvironmentJsonText(const EnvironmentInfo& env);
Result<EnvironmentInfo> EnvironmentFromJson(std::string_view text, std::string_view path);
void WriteEnvironmentMarkdown(const EnvironmentInfo& env, std::ostream& out);

}  // namespace optrace::evidence
