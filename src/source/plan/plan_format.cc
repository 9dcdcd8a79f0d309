// Plan output: the text tree, the JSON plan (schema_version 1) and reading it back.
#include <climits>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <nlohmann/json.hpp>

#include "source/lexer/trace_calls.h"
#include "core/json_text.h"
#include "core/json_number.h"
#include "source/plan/plan.h"

namespace optrace::source {
namespace {

using json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 2;

json CoresJson(unsigned c) {
  json a = json::array();
  if (c & kPlanAic) a.push_back("aic");
  if (c & kPlanAiv) a.push_back("aiv");
  return a;
}

bool HasTraced(const Plan& plan, const PlanNode& node) {
  for (const PlanNode& c : node.children) {
    const PlanSite& s = plan.sites[static_cast<size_t>(c.site)];
    if (Inserts(s.decision) || s.decision == Decision::kExisting || HasTraced(plan, c)) return true;
  }
  return false;
}

void TreeText(const Plan& plan, const PlanNode& node, int indent, std::string* out) {
  const PlanSite& s = plan.sites[static_cast<size_t>(node.site)];
  std::string cores = PlanCoreName(node.cores ? node.cores : s.cores);
  if (!node.role.empty()) cores += " " + node.role;
  std::string what = DecisionName(s.decision);
  if (!s.label.empty() && (Inserts(s.decision) || s.decision == Decision::kExisting)) {
    what += fmt::format(" \"{}\"", s.label);
    if (!s.index.empty()) {
      std::string idx;
      for (const std::string& i : s.index) idx += (idx.empty() ? "" : ", ") + i;
      what += fmt::format(" ({})", idx);
    }
  }
  std::string calls = node.calls > 1 ? fmt::format(" x{}", node.calls) : "";
  std::string name = s.name;
  if (!node.variant.empty() && name.find('<') == std::string::npos) {
    std::string v = node.variant.size() > 48 ? node.variant.substr(0, 45) + "..." : node.variant;
    name += "<" + v + ">";
  }
  *out += fmt::format("{}{}{}  {}:{}  [{}]  {}  -- {}\n", std::string(static_cast<size_t>(indent) * 2, ' '), name,
                      calls, s.file, s.line, cores, what, s.reason);
  // Skipped helpers with nothing traced below them are listed on one line.
  std::vector<std::string> quiet;
  for (const PlanNode& c : node.children) {
    const PlanSite& cs = plan.sites[static_cast<size_t>(c.site)];
    if (cs.kind == SiteKind::kFunction && cs.decision == Decision::kSkip && !HasTraced(plan, c)) {
      if (std::find(quiet.begin(), quiet.end(), cs.name) == quiet.end()) quiet.push_back(cs.name);
      continue;
    }
    TreeText(plan, c, indent + 1, out);
  }
  if (!quiet.empty()) {
    std::string list;
    for (const std::string& q : quiet) list += (list.empty() ? "" : ", ") + q;
    *out += fmt::format("{}(skipped helpers: {})\n", std::string(static_cast<size_t>(indent + 1) * 2, ' '), list);
  }
}

json NodeJson(const PlanNode& node, const Plan& plan) {
  json j;
  j["site"] = plan.sites[static_cast<size_t>(node.site)].id;
  j["cores"] = CoresJson(node.cores);
  if (!node.role.empty()) j["role"] = node.role;
  if (!node.variant.empty()) j["instantiation"] = node.variant;
  if (node.calls > 1) j["calls"] = node.calls;
  j["children"] = json::array();
  for (const PlanNode& c : node.children) j["children"].push_back(NodeJson(c, plan));
  return j;
}

}  // namespace

const char* SiteKindName(SiteKind k) {
  switch (k) {
    case SiteKind::kFunction: return "function";
    case SiteKind::kLoopBody: return "loop-body";
    case SiteKind::kLoop: return "loop";
    case SiteKind::kStatement: return "statement";
  }
  return "?";
}

const char* DecisionName(Decision d) {
  switch (d) {
    case Decision::kPhase: return "phase";
    case Decision::kHot: return "hot";
    case Decision::kMerge: return "merge";
    case Decision::kSkip: return "skip";
    case Decision::kExisting: return "existing";
  }
  return "?";
}

bool ParseSiteKind(std::string_view s, SiteKind* k) {
  for (SiteKind x : {SiteKind::kFunction, SiteKind::kLoopBody, SiteKind::kLoop, SiteKind::kStatement})
    if (s == SiteKindName(x)) return *k = x, true;
  return false;
}

bool ParseDecision(std::string_view s, Decision* d) {
  for (Decision x : {Decision::kPhase, Decision::kHot, Decision::kMerge, Decision::kSkip, Decision::kExisting})
    if (s == DecisionName(x)) return *d = x, true;
  return false;
}

std::string FormatPlanText(const Plan& plan) {
  std::string out = fmt::format("plan for {}: {} kernel(s)\n", plan.op_dir.string(), plan.kernels.size());
  for (const PlanKernel& k : plan.kernels) {
    out += fmt::format("\nkernel {} ({}:{}), runs on {} ({})\n", k.function, k.entry, k.line, PlanCoreName(k.cores),
                       k.core_source);
    if (k.root.site >= 0) TreeText(plan, k.root, 0, &out);
  }
  int inserted = 0;
  for (const PlanSite& s : plan.sites) inserted += Inserts(s.decision) && !s.label.empty();
  std::set<std::string> files = plan.TracedFiles();
  out += fmt::format("\n{} site(s) to instrument in {} file(s); depth at most {}, density target {}-{} (limits {}-{}) "
                     "per core type\n",
                     inserted, files.size(), kMaxLevels, kTargetMin, kTargetMax, kDensityMin, kDensityMax);
  for (const PlanKernel& k : plan.kernels) {
    std::string counts;
    if (k.cores & kPlanAic) counts += fmt::format("AIC {}", k.labels.aic.size());
    if (k.cores & kPlanAiv) counts += fmt::format("{}AIV {}", counts.empty() ? "" : ", ", k.labels.aiv.size());
    out += fmt::format("  {}: labels {}; depth {}\n", k.function, counts, k.max_depth);
    auto list = [&](const char* name, const std::vector<std::string>& v) {
      out += fmt::format("    {}:", name);
      for (const std::string& l : v) out += fmt::format(" \"{}\"", l);
      out += "\n";
    };
    if (k.cores & kPlanAic) list("AIC", k.labels.aic);
    if (k.cores & kPlanAiv) list("AIV", k.labels.aiv);
  }
  for (const std::string& n : plan.notes) out += "note: " + n + "\n";
  for (const std::string& w : plan.warnings) out += "warning: " + w + "\n";
  return out;
}

std::string PlanToJson(const Plan& plan) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["format"] = "optrace-plan";
  j["op_dir"] = plan.op_dir.generic_string();
  j["sites"] = json::array();
  for (const PlanSite& s : plan.sites) {
    json x;
    x["id"] = s.id;
    x["kind"] = SiteKindName(s.kind);
    x["file"] = s.file;
    x["line"] = s.line;
    if (s.in_macro) x["in_macro"] = true;
    x["name"] = s.name;
    x["cores"] = CoresJson(s.cores);
    x["roles"] = json(std::vector<std::string>(s.roles.begin(), s.roles.end()));
    x["decision"] = DecisionName(s.decision);
    x["reason"] = s.reason;
    x["label"] = s.label;
    x["index"] = s.index;
    x["depth"] = s.depth;
    x["optional"] = s.optional;
    x["main_flow"] = s.main_flow;
    if (s.density_sensitive) x["density_sensitive"] = true;
    j["sites"].push_back(std::move(x));
  }
  j["kernels"] = json::array();
  for (const PlanKernel& k : plan.kernels) {
    json x;
    x["entry"] = k.entry;
    x["function"] = k.function;
    x["line"] = k.line;
    x["cores"] = CoresJson(k.cores);
    x["core_source"] = k.core_source;
    x["split_cores"] = k.split;
    x["tree"] = k.root.site >= 0 ? NodeJson(k.root, plan) : json();
    x["density"] = {{"aic", {{"count", k.labels.aic.size()}, {"labels", k.labels.aic}}},
                    {"aiv", {{"count", k.labels.aiv.size()}, {"labels", k.labels.aiv}}},
                    {"max_depth", k.max_depth},
                    {"target", {kTargetMin, kTargetMax}},
                    {"limits", {kDensityMin, kDensityMax}}};
    j["kernels"].push_back(std::move(x));
  }
  j["notes"] = plan.notes;
  j["warnings"] = plan.warnings;
  return JsonText(j) + "\n";
}

Result<Plan> PlanFromJson(std::string_view text, const std::string& path) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return BadInputError("{}: not valid JSON; write the plan with `optrace plan --format json`", path);
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer())
    return BadInputError("{}: no \"schema_version\"; not an optrace plan", path);
  if (j["schema_version"].get<int64_t>() > kSchemaVersion)
    return BadInputError("{}: schema_version {} is newer than this optrace reads ({})", path,
                         j["schema_version"].get<int64_t>(), kSchemaVersion);
  if (!j.contains("sites") || !j["sites"].is_array())
    return BadInputError("{}: no \"sites\" array; not an optrace plan", path);
  Plan plan;
  if (j.contains("op_dir") && j["op_dir"].is_string()) plan.op_dir = j["op_dir"].get<std::string>();
  if (j.contains("kernels") && j["kernels"].is_array()) {
    for (const json& k : j["kernels"]) {
      if (!k.is_object()) continue;
      PlanKernel pk;
      if (k.contains("entry") && k["entry"].is_string()) pk.entry = k["entry"].get<std::string>();
      if (k.contains("function") && k["function"].is_string()) pk.function = k["function"].get<std::string>();
      plan.kernels.push_back(std::move(pk));
    }
  } else if (j.contains("entry") && j["entry"].is_string()) {  // schema 1
    PlanKernel pk;
    pk.entry = j["entry"].get<std::string>();
    plan.kernels.push_back(std::move(pk));
  }
  size_t n = 0;
  for (const json& x : j["sites"]) {
    ++n;
    auto field = [&](const char* key) -> std::string {
      return x.contains(key) && x[key].is_string() ? x[key].get<std::string>() : std::string();
    };
    PlanSite s;
    if (!x.is_object()) return BadInputError("{}: site {} is not an object; write the plan with `optrace plan --format json`", path, n);
    s.id = static_cast<int>(n);
    if (x.contains("id")) {
      if (!x["id"].is_number_integer() || x["id"].get<int64_t>() < 0 || x["id"].get<int64_t>() > 1000000000)
        return BadInputError("{}: site {}: \"id\" must be a non-negative integer", path, n);
      s.id = x["id"].get<int>();
    }
    if (!ParseSiteKind(field("kind"), &s.kind))
      return BadInputError("{}: site {}: \"kind\" must be function, loop-body, loop or statement", path, n);
    if (!ParseDecision(field("decision"), &s.decision))
      return BadInputError("{}: site {}: \"decision\" must be phase, hot, merge, skip or existing", path, s.id);
    s.file = field("file");
    s.name = field("name");
    s.label = field("label");
    s.line = x.contains("line") ? static_cast<int>(JsonInteger(x["line"], 0, INT_MAX).value_or(0)) : 0;
    s.in_macro = x.contains("in_macro") && x["in_macro"].is_boolean() && x["in_macro"].get<bool>();
    if (s.file.empty() || s.line <= 0)
      return BadInputError("{}: site {}: needs \"file\" and a positive \"line\"", path, s.id);
    if (Inserts(s.decision) && s.label.empty())
      return BadInputError("{}: site {} ({}:{}): decision \"{}\" needs a \"label\"", path, s.id, s.file, s.line,
                           DecisionName(s.decision));
    // An edited label goes into the sources as a string literal: hold it to lint's label-style rule.
    if (Inserts(s.decision) && !LabelStyleOk(s.label))
      return BadInputError("{}: site {} ({}:{}): label \"{}\" breaks the label-style rule (lowercase words of a-z, "
                           "0-9 and '-', separated by single spaces); rename it in the plan",
                           path, s.id, s.file, s.line, s.label);
    if (x.contains("index") && x["index"].is_array())
      for (const json& i : x["index"])
        if (i.is_string()) s.index.push_back(i.get<std::string>());
    if (x.contains("cores") && x["cores"].is_array())
      for (const json& c : x["cores"]) s.cores |= c == "aic" ? 1u : c == "aiv" ? 2u : 0u;
    plan.sites.push_back(std::move(s));
  }
  return plan;
}

}  // namespace optrace::source
