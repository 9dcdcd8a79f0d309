// Environment model: --fields, compile flags, `npu-smi info` parsing, environment.json and the
// Markdown page. The probes that read the machine are in environment_probe.cc.
#include "evidence/environment/environment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/markdown_escape.h"
#include "core/json_text.h"
#include "evidence/environment/environment_text.h"

namespace optrace::evidence {
namespace fs = std::filesystem;
using env_text::AddUnique;
using env_text::kNotFound;
using env_text::Lines;
using env_text::Lower;
using env_text::Trim;
using env_text::Unquote;
namespace {

// Shell-like words: quotes group, backslash escapes (compile_commands.json "command" strings).
std::vector<std::string> ShellWords(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < s.size()) {
        cur += s[++i];
      } else {
        cur += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(std::move(cur));
  return out;
}

constexpr std::string_view kJoinedFlags[] = {"--cce-soc-version", "--cce-aicore-arch", "--npu-arch"};

// Flags of one compiler invocation (args[0] is the compiler).
void CollectFlags(const std::vector<std::string>& args, CompileFlags& cf) {
  if (args.empty()) return;
  AddUnique(cf.compilers, args[0]);
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_next = i + 1 < args.size();
    if (a == "-D" && has_next) {
      AddUnique(cf.flags, "-D" + args[++i]);
    } else if ((a.starts_with("-O") || a.starts_with("-D")) && a.size() > 2) {
      AddUnique(cf.flags, a);
    } else if (a == "-O" || (a.starts_with("-g") && !a.starts_with("-gcc"))) {
      AddUnique(cf.flags, a);
    } else {
      for (std::string_view f : kJoinedFlags) {
        if (a == f && has_next) {
          AddUnique(cf.flags, a + "=" + args[++i]);
        } else if (a.starts_with(std::string(f) + "=")) {
          AddUnique(cf.flags, a);
        }
      }
    }
  }
}

bool LooksLikeCompiler(std::string_view word) {
  std::string base = fs::path(std::string(word)).filename().string();
  while (!base.empty() && (std::isdigit(static_cast<unsigned char>(base.back())) || base.back() == '.'))
    base.pop_back();
  if (base.ends_with("-")) base.pop_back();  // g++-12, clang-17
  static const std::vector<std::string_view> kNames = {"cc",      "gcc",  "c++",  "g++", "clang", "clang++",
                                                       "bisheng", "ccec", "nvcc", "icx", "icpx"};
  for (std::string_view n : kNames) {
    if (base == n || base.ends_with("-" + std::string(n))) return true;  // aarch64-linux-gnu-g++
  }
  return false;
}

template <typename Json>
std::string JsonValueText(const Json& v) {
  return v.is_string() ? v.template get<std::string>() : JsonText(v, -1);
}

std::string Cell(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '|' ? '/' : (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

}  // namespace

const EnvItem* EnvironmentInfo::Find(std::string_view key) const {
  auto it = std::find_if(items.begin(), items.end(), [&](const EnvItem& i) { return i.key == key; });
  return it == items.end() ? nullptr : &*it;
}

std::optional<std::string> EnvironmentInfo::Value(std::string_view key) const {
  const EnvItem* i = Find(key);
  return i ? i->value : std::nullopt;
}

std::optional<std::string> EnvironmentInfo::Field(std::string_view key) const {
  for (const EnvField& f : fields) {
    if (f.key == key) return f.value;
  }
  return std::nullopt;
}

const std::vector<std::string_view>& KnownFieldKeys() {
  static const std::vector<std::string_view> kKeys = {
      "nodes", "cards_per_node", "transport", "aiv_count", "T", "H", "K", "E", "dtype", "routing", "seed"};
  return kKeys;
}

Result<std::vector<EnvField>> ParseFields(std::string_view text, std::string_view path) {
  std::vector<EnvField> out;
  auto add = [&](std::string key, std::string value, size_t line) -> Status {
    for (std::string_view k : KnownFieldKeys()) {
      if (Lower(k) == Lower(key)) key = std::string(k);
    }
    for (const EnvField& f : out) {
      if (f.key == key) {
        return line ? BadInputError("{}:{}: field '{}' given twice", path, line, key)
                    : BadInputError("{}: field '{}' given twice", path, key);
      }
    }
    out.push_back({std::move(key), std::move(value)});
    return Status::Ok();
  };
  std::string trimmed = Trim(text);
  if (trimmed.starts_with("{")) {
    auto j = nlohmann::ordered_json::parse(trimmed, nullptr, false);  // ordered: keep the file's order
    if (j.is_discarded() || !j.is_object()) {
      return BadInputError("{}: not a valid JSON object; give a JSON object or one 'key: value' per line", path);
    }
    for (const auto& [k, v] : j.items()) {
      OPTRACE_RETURN_IF_ERROR(add(k, v.is_string() ? v.get<std::string>() : JsonText(v, -1), 0));
    }
    return out;
  }
  std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& raw = lines[i];
    std::string line = Trim(raw);
    if (line.empty() || line.starts_with("#") || line == "---") continue;
    if (std::isspace(static_cast<unsigned char>(raw[0]))) {
      return BadInputError("{}:{}: nested values are not supported; give one 'key: value' per line", path, i + 1);
    }
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) {
      return BadInputError("{}:{}: expected 'key: value', got '{}'", path, i + 1, line);
    }
    std::string value = Trim(std::string_view(line).substr(colon + 1));
    if (!value.starts_with("\"") && !value.starts_with("'")) {
      if (size_t hash = value.find(" #"); hash != std::string::npos) value = Trim(value.substr(0, hash));
    }
    OPTRACE_RETURN_IF_ERROR(add(Trim(line.substr(0, colon)), Unquote(value), i + 1));
  }
  return out;
}

Result<CompileFlags> CompileFlagsFromCompileCommands(std::string_view json_text, std::string_view path) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    return BadInputError(
        "{}: not a compile_commands.json (expected a JSON array of {{directory, file, command or "
        "arguments}})",
        path);
  }
  CompileFlags cf;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& e = j[i];
    std::vector<std::string> args;
    if (e.is_object() && e.contains("arguments") && e["arguments"].is_array()) {
      for (const auto& a : e["arguments"]) {
        if (a.is_string()) args.push_back(a.get<std::string>());
      }
    } else if (e.is_object() && e.contains("command") && e["command"].is_string()) {
      args = ShellWords(e["command"].get<std::string>());
    } else {
      return BadInputError("{}: entry {} has neither \"arguments\" nor \"command\"", path, i);
    }
    CollectFlags(args, cf);
  }
  return cf;
}

CompileFlags CompileFlagsFromBuildLog(std::string_view log_text) {
  CompileFlags cf;
  for (const std::string& line : Lines(log_text)) {
    std::vector<std::string> words = ShellWords(line);
    auto it = std::find_if(words.begin(), words.end(), [](const std::string& w) { return LooksLikeCompiler(w); });
    if (it == words.end()) continue;
    CollectFlags(std::vector<std::string>(it, words.end()), cf);
  }
  return cf;
}

NpuSmiInfo ParseNpuSmiInfo(std::string_view text) {
  NpuSmiInfo info;
  bool in_table = false;
  bool expect_npu_row = true;  // the table alternates an "NPU Name" row and a "Chip" row per device
  for (const std::string& line : Lines(text)) {
    if (!info.version) {
      if (size_t v = line.find("Version:"); v != std::string::npos) {
        std::string rest = Trim(std::string_view(line).substr(v + 8));
        rest = Trim(rest.substr(0, rest.find('|')));
        if (!rest.empty()) info.version = rest;
      }
    }
    if (line.find("Process id") != std::string::npos || line.find("Process name") != std::string::npos) break;
    if (line.starts_with("+=")) {
      in_table = true;
      expect_npu_row = true;
      continue;
    }
    if (!in_table) continue;
    if (line.starts_with("+-")) {
      expect_npu_row = true;
      continue;
    }
    if (!line.starts_with("|")) {
      in_table = false;  // the process table or the end follows
      continue;
    }
    std::string first = Trim(std::string_view(line).substr(1, line.find('|', 1) - 1));
    if (!expect_npu_row) continue;
    expect_npu_row = false;
    size_t sp = first.find_first_of(" \t");
    if (sp == std::string::npos || first.empty() || !std::isdigit(static_cast<unsigned char>(first[0]))) continue;
    std::string name = Trim(std::string_view(first).substr(sp));
    if (name.empty()) continue;
    ++info.npu_count;
    AddUnique(info.names, name);
  }
  return info;
}

std::string EnvironmentJsonText(const EnvironmentInfo& env) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kEnvironmentSchemaVersion;
  doc["generator"] = "optrace env";
  doc["probed_at"] = env.probed_at;
  doc["items"] = nlohmann::ordered_json::array();
  for (const EnvItem& i : env.items) {
    nlohmann::ordered_json item;
    item["key"] = i.key;
    item["label"] = i.label;
    item["value"] = i.value ? nlohmann::ordered_json(*i.value) : nlohmann::ordered_json(nullptr);
    item["from"] = i.from;
    doc["items"].push_back(std::move(item));
  }
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (const EnvField& f : env.fields) values[f.key] = f.value;
  doc["fields"] = {
      {"from", env.fields_from.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(env.fields_from)},
      {"values", std::move(values)}};
  return JsonText(doc) + "\n";
}

Result<EnvironmentInfo> EnvironmentFromJson(std::string_view text, std::string_view path) {
  auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return BadInputError("{}: not a JSON object; expected the environment.json that `optrace env -o DIR` writes", path);
  }
  if (!doc.contains("schema_version") || !doc["schema_version"].is_number_integer()) {
    return BadInputError("{}: no integer \"schema_version\"; expected the environment.json of `optrace env -o DIR`",
                         path);
  }
  int64_t version = doc["schema_version"].get<int64_t>();
  if (version != kEnvironmentSchemaVersion) {
    return BadInputError("{}: schema_version {} is not {}; regenerate it with this optrace's `optrace env`", path,
                         version, kEnvironmentSchemaVersion);
  }
  EnvironmentInfo env;
  env.origin = std::string(path);
  if (doc.contains("probed_at") && doc["probed_at"].is_string()) env.probed_at = doc["probed_at"].get<std::string>();
  if (doc.contains("items")) {
    if (!doc["items"].is_array()) return BadInputError("{}: \"items\" is not an array", path);
    size_t n = 0;
    for (const auto& i : doc["items"]) {
      if (!i.is_object() || !i.contains("key") || !i["key"].is_string()) {
        return BadInputError("{}: items[{}] has no string \"key\"", path, n);
      }
      EnvItem item;
      item.key = i["key"].get<std::string>();
      item.label = i.contains("label") && i["label"].is_string() ? i["label"].get<std::string>() : item.key;
      if (i.contains("value") && !i["value"].is_null()) item.value = JsonValueText(i["value"]);
      if (i.contains("from") && i["from"].is_string()) item.from = i["from"].get<std::string>();
      env.items.push_back(std::move(item));
      ++n;
    }
  }
  if (doc.contains("fields") && doc["fields"].is_object()) {
    const auto& f = doc["fields"];
    if (f.contains("from") && f["from"].is_string()) env.fields_from = f["from"].get<std::string>();
    if (f.contains("values") && f["values"].is_object()) {
      for (const auto& [k, v] : f["values"].items()) env.fields.push_back({k, JsonValueText(v)});
    }
  }
  return env;
}

static void WriteEnvironmentMarkdownUnescaped(const EnvironmentInfo& env, std::ostream& out) {
  out << "# Environment (optrace env)\n\n";
  out << fmt::format(
      "Probed at {}. Each value names where it came from; `{}` means the probe looked there "
      "(the \"from\" column) and found nothing.\n\n",
      env.probed_at.empty() ? "an unknown time" : env.probed_at, kNotFound);
  out << "| item | value | from |\n|---|---|---|\n";
  for (const EnvItem& i : env.items) {
    out << fmt::format("| {} | {} | {} |\n", Cell(i.label), i.value ? Cell(*i.value) : std::string(kNotFound),
                       Cell(i.from));
  }
  out << "\n## Launch fields\n\n";
  if (env.fields_from.empty()) {
    out << "No `--fields` file: nodes x cards, transport, AIV count, shape, dtype, routing and seed are for the "
           "person who ran the experiment.\n";
    return;
  }
  out << fmt::format("From `{}`.\n\n| field | value |\n|---|---|\n", env.fields_from);
  for (const EnvField& f : env.fields) out << fmt::format("| {} | {} |\n", Cell(f.key), Cell(f.value));
  for (std::string_view k : KnownFieldKeys()) {
    if (!env.Field(k)) out << fmt::format("| {} | {} |\n", k, kNotFound);
  }
}

void WriteEnvironmentMarkdown(const EnvironmentInfo& env, std::ostream& out) {
  // Names and values from the user's files: no inline HTML reaches a Markdown viewer.
  std::ostringstream md;
  WriteEnvironmentMarkdownUnescaped(env, md);
  out << EscapeMarkdownHtml(md.str());
}

}  // namespace optrace::evidence
