// Text, JSON and SARIF 2.1.0 renderings of a lint report.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "core/json_text.h"
#include "core/uri_path.h"
#include "source/lexer/include_tree.h"
#include "source/lint/lint.h"

namespace optrace::source {
namespace {
using nlohmann::json;

std::string DensityLine(const LintReport& r) {
  if (!r.density.known) return "";
  if (!r.density.split) {
    if (r.density.aic_labels.empty()) return fmt::format("; AIV {} labels", r.density.aiv_labels.size());
    if (r.density.aiv_labels.empty()) return fmt::format("; AIC {} labels", r.density.aic_labels.size());
    return fmt::format("; {} distinct labels", r.density.aic_labels.size());
  }
  return fmt::format("; AIC {} labels, AIV {} labels", r.density.aic_labels.size(), r.density.aiv_labels.size());
}

}  // namespace

std::string UnresolvedIncludesNote(const std::vector<std::string>& unresolved) {
  if (unresolved.empty()) return "";
  std::set<std::string> names;
  for (const std::string& u : unresolved) names.insert(u.substr(u.rfind(": ") + 2));
  std::string list;
  size_t n = 0;
  for (const std::string& name : names) {
    if (n++ == 4) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + name;
  }
  return fmt::format("note: {} #include \"...\" not found in the tree or the -I directories ({}; first at {}): taken "
                     "as SDK headers and not read; give -I DIR if one of them holds trace points\n",
                     unresolved.size(), list, unresolved.front().substr(0, unresolved.front().rfind(": ")));
}

// "compile check (SDK, compiler): N compile(s) ...": what --compile compiled and what it found.
std::string CompileLine(const LintReport& r) {
  if (!r.compile) return "";
  const CompileCheckReport& c = *r.compile;
  size_t own = 0, made = 0, sdk = 0;
  double seconds = 0;
  for (const CompileUnitResult& u : c.units) {
    for (const CompileError& e : u.errors) (e.optrace_made ? made : own) += 1;
    sdk += u.sdk_errors;
    seconds += u.seconds;
  }
  std::string out = fmt::format(
      "compile check ({}; {}): {} compile(s) in {:.1f} s, {} error(s) in the operator, {} in lines or headers optrace "
      "made",
      c.sdk, std::filesystem::path(c.compiler).filename().string(), c.units.size(), seconds, own, made);
  if (sdk > 0) out += fmt::format(", {} inside the SDK's own headers (not the operator's)", sdk);
  out += "\n";
  for (const CompileUnitResult& u : c.units)
    if (!u.fatal.empty())
      out += fmt::format("compile check: {} ({}) stopped at {}: nothing after it was checked (a missing -I folder?)\n",
                         u.entry, u.core, u.fatal);
  return out;
}

std::string FormatLintText(const LintReport& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += FormatDiagnostic(d) + "\n";
  size_t errors = r.Count(Severity::kError), warnings = r.Count(Severity::kWarning);
  out += fmt::format("optrace lint: {} error(s), {} warning(s) in {} file(s), {} trace point(s){}{}\n", errors,
                     warnings, r.files_checked, r.trace_points,
                     r.entry.empty() ? "" : fmt::format("; entry {}", r.entry), DensityLine(r));
  out += CompileLine(r);
  out += UnresolvedIncludesNote(r.unresolved_includes);
  if (!r.includes_found_by_name.empty()) out += "note: " + FoundByNameSummary(r.includes_found_by_name) + "\n";
  if (r.gates.empty()) return out;
  size_t counts[3] = {0, 0, 0};
  out += "gates:\n";
  for (const GateVerdict& g : r.gates) {
    ++counts[static_cast<int>(g.state)];
    out += fmt::format("  {} {:<15} {:<25} {}\n", g.id, g.title, GateStateName(g.state), g.reason);
    for (size_t i : g.findings) {
      const Diagnostic& d = r.diagnostics[i];
      out += fmt::format("       {}{}: {} [{}]\n", d.file, d.line > 0 ? fmt::format(":{}", d.line) : "",
                         SeverityName(d.severity), d.rule);
    }
  }
  out += fmt::format("optrace lint --gates: {} satisfied, {} not satisfied, {} not checkable statically\n",
                     counts[static_cast<int>(GateState::kSatisfied)], counts[static_cast<int>(GateState::kNotSatisfied)],
                     counts[static_cast<int>(GateState::kNotCheckable)]);
  return out;
}

std::string FormatLintJson(const LintReport& r) {
  json j;
  j["schema_version"] = 1;
  j["tool"] = "optrace lint";
  j["root"] = r.root;
  j["entry"] = r.entry;
  j["summary"] = {{"errors", r.Count(Severity::kError)},
                  {"warnings", r.Count(Severity::kWarning)},
                  {"files", r.files_checked},
                  {"lines", r.lines_checked},
                  {"trace_points", r.trace_points}};
  if (r.density.known) {
    j["density"] = {{"split", r.density.split},
                    {"aic", {{"count", r.density.aic_labels.size()}, {"labels", r.density.aic_labels}}},
                    {"aiv", {{"count", r.density.aiv_labels.size()}, {"labels", r.density.aiv_labels}}}};
  } else {
    j["density"] = nullptr;
  }
  j["unresolved_includes"] = r.unresolved_includes;
  j["includes_found_by_name"] = r.includes_found_by_name;
  j["diagnostics"] = json::array();
  for (const Diagnostic& d : r.diagnostics) {
    j["diagnostics"].push_back({{"file", d.file}, {"line", d.line}, {"column", d.column},
                                {"severity", SeverityName(d.severity)}, {"rule", d.rule},
                                {"gate", GateOfRule(d.rule)}, {"message", d.message}});
  }
  if (r.compile) {
    json units = json::array();
    for (const CompileUnitResult& u : r.compile->units) {
      units.push_back({{"entry", u.entry}, {"core", u.core}, {"exit_code", u.exit_code}, {"timed_out", u.timed_out},
                       {"seconds", u.seconds}, {"errors", u.errors.size()}, {"sdk_errors", u.sdk_errors}, {"fatal", u.fatal},
                       {"command", u.command}});
    }
    j["compile"] = {{"sdk", r.compile->sdk}, {"compiler", r.compile->compiler}, {"units", units}};
    if (!r.compile->tiling_standin.empty()) j["compile"]["tiling_standin"] = r.compile->tiling_standin;
  }
  if (!r.gates.empty()) {
    j["gates"] = json::array();
    for (const GateVerdict& g : r.gates) {
      j["gates"].push_back({{"id", g.id}, {"title", g.title}, {"state", GateStateName(g.state)},
                            {"reason", g.reason}, {"findings", g.findings}});
    }
  }
  return JsonText(j) + "\n";
}

std::string FormatLintSarif(const LintReport& r) {
  json rules = json::array();
  std::map<std::string, size_t> rule_index;
  for (const LintRule& rule : AllLintRules()) {
    rule_index[rule.id] = rules.size();
    rules.push_back({{"id", rule.id},
                     {"name", rule.id},
                     {"shortDescription", {{"text", rule.summary}}},
                     {"help", {{"text", rule.fix}}},
                     {"defaultConfiguration", {{"level", rule.severity == Severity::kError ? "error" : rule.severity == Severity::kWarning ? "warning" : "note"}}},
                     {"properties", {{"group", rule.group}, {"gate", rule.gate}}}});
  }
  json results = json::array();
  for (const Diagnostic& d : r.diagnostics) {
    json region = json::object();
    if (d.line > 0) {
      region["startLine"] = d.line;
      region["startColumn"] = d.column > 0 ? d.column : 1;
    }
    json location = {{"physicalLocation",
                      {{"artifactLocation", {{"uri", UriPath(d.file)}, {"uriBaseId", "SRCROOT"}}}}}};
    if (!region.empty()) location["physicalLocation"]["region"] = region;
    json result = {{"ruleId", d.rule},
                   {"level", d.severity == Severity::kError     ? "error"
                             : d.severity == Severity::kWarning ? "warning"
                                                                : "note"},
                   {"message", {{"text", d.message}}},
                   {"locations", json::array({location})},
                   {"properties", {{"gate", GateOfRule(d.rule)}}}};
    if (auto it = rule_index.find(d.rule); it != rule_index.end()) result["ruleIndex"] = it->second;
    results.push_back(std::move(result));
  }
  json run = {{"tool",
               {{"driver",
                 {{"name", "optrace-lint"},
                  {"informationUri", "https://github.com/optrace/optrace/blob/main/docs/source.md"},
                  {"version", "1"},
                  {"rules", rules}}}}},
              {"originalUriBaseIds", {{"SRCROOT", {{"uri", "file://" + UriPath(r.root) + "/"}}}}},
              {"results", results}};
  if (!r.gates.empty()) {
    json gates = json::array();
    for (const GateVerdict& g : r.gates)
      gates.push_back({{"id", g.id}, {"title", g.title}, {"state", GateStateName(g.state)}, {"reason", g.reason}});
    run["properties"] = {{"gates", gates}};
  }
  json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
  return JsonText(doc) + "\n";
}

}  // namespace optrace::source
