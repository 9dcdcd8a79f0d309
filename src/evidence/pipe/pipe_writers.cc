// Text and JSON writers for per-role pipe summaries.
#include <fmt/format.h>

#include <algorithm>

#include "evidence/pipe/pipe_summary.h"

namespace optrace::evidence {
namespace {

std::string Num(double v) { return fmt::format("{:.6g}", v); }

std::string OpLine(const OpBasicInfo& op) {
  auto get = [&](std::string_view k) { return op.Get(k).value_or("?"); };
  return fmt::format("{} ({}), task duration {} us, block dim {}, mix block dim {}, device {}, frequency {} MHz (rated {})",
                     get("Op Name"), get("Op Type"), get("Task Duration(us)"), get("Block Dim"), get("Mix Block Dim"),
                     get("Device Id"), get("Current Freq"), get("Rated Freq"));
}

nlohmann::ordered_json SummaryJson(const RoleValue& rv) {
  nlohmann::ordered_json j;
  if (rv.summary) {
    const MetricSummary& m = *rv.summary;
    j["summary"] = {{"samples", m.samples}, {"mean", m.mean},     {"min", m.min},
                    {"max", m.max},         {"spread", m.spread}, {"max_core", m.max_core}};
    j["reason"] = nullptr;
  } else {
    j["summary"] = nullptr;
    j["reason"] = rv.reason;
  }
  return j;
}

nlohmann::ordered_json OptNum(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

void WritePipeText(const PipeSummary& s, const std::vector<MetricDelta>* deltas, std::ostream& out) {
  out << fmt::format("pipe: {}\n", fmt::join(s.inputs, ", "));
  if (s.op) out << "op: " << OpLine(*s.op) << "\n";
  out << fmt::format("cores: AIC index = block_id; AIV index = block_id * {} + k of vector<k>\n", s.vectors_per_block);
  out << (s.default_roles ? "roles (no --roles: one per core kind):\n" : "roles:\n");
  for (const RoleInfo& r : s.roles) {
    if (s.default_roles) {
      out << fmt::format("  {}: {} cores\n", r.name, r.found_cores);
    } else {
      out << fmt::format("  {}: {}: {} of {} cores in the export{}\n", r.name, r.declared, r.found_cores,
                         r.declared_cores, r.missing.empty() ? "" : fmt::format(" (missing {})", r.missing));
    }
  }
  if (!s.unassigned.empty()) out << "cores no role claims: " << s.unassigned << "\n";
  const ExportCoverage& cov = s.coverage;
  if (!cov.checked) {
    out << "export coverage: not checked (" << cov.why_not << ")\n";
  } else if (cov.problems.empty()) {
    out << fmt::format("export coverage: every table has rows for the {} AIC + {} AIV cores OpBasicInfo.csv declares\n",
                       cov.expected_aic, cov.expected_aiv);
  } else {
    for (const std::string& p : cov.problems) out << "export coverage problem: " << p << "\n";
  }
  out << "spread = max - min over the role's cores; values as exported (ratios 0-1, times us)\n";

  std::string table;
  std::vector<std::string> not_provided;
  auto flush = [&]() {
    if (!not_provided.empty()) out << fmt::format("  not provided: {}\n", fmt::join(not_provided, ", "));
    not_provided.clear();
  };
  for (const MetricEntry& m : s.metrics) {
    if (m.table != table) {
      flush();
      table = m.table;
      std::string file;
      for (const auto& [n, f] : s.tables) {
        if (n == table) file = f;
      }
      if (file.empty()) {
        out << fmt::format("\n{}: not provided (no {}.csv in the input)\n", table, table);
      } else {
        out << fmt::format("\n{} ({})\n", table, file);
        out << fmt::format("  {:<36} {:<12} {:>5} {:>12} {:>12} {:>12} {:>12}  {}\n", "metric", "role", "cores", "mean",
                           "min", "max", "spread", "max at");
      }
    }
    bool table_absent = false;
    for (const auto& [n, f] : s.tables) {
      if (n == m.table) table_absent = f.empty();
    }
    if (table_absent) continue;
    if (!m.provided) {
      not_provided.push_back(m.name);
      continue;
    }
    for (const RoleValue& rv : m.per_role) {
      if (rv.summary) {
        const MetricSummary& x = *rv.summary;
        out << fmt::format("  {:<36} {:<12} {:>5} {:>12} {:>12} {:>12} {:>12}  {}\n", m.name, rv.role, x.samples,
                           Num(x.mean), Num(x.min), Num(x.max), Num(x.spread), x.max_core);
      } else {
        out << fmt::format("  {:<36} {:<12} {:>5} {:>12}  ({})\n", m.name, rv.role, 0, "-", rv.reason);
      }
    }
  }
  flush();
  if (!deltas) return;
  out << "\ncompare: delta = compare - base, per role, of the means\n";
  out << fmt::format("  {:<36} {:<12} {:>12} {:>12} {:>12} {:>9}\n", "metric", "role", "base", "compare", "delta",
                     "delta%");
  // Pairs without a delta are grouped by reason so absent tables do not drown the deltas.
  std::vector<std::pair<std::string, std::vector<std::string>>> no_delta;
  for (const MetricDelta& d : *deltas) {
    if (d.delta) {
      out << fmt::format("  {:<36} {:<12} {:>12} {:>12} {:>12} {:>9}\n", d.name, d.role, Num(*d.base_mean),
                         Num(*d.compare_mean), Num(*d.delta), d.delta_pct ? fmt::format("{:+.1f}%", *d.delta_pct) : "-");
      continue;
    }
    auto it = std::find_if(no_delta.begin(), no_delta.end(), [&](const auto& g) { return g.first == d.reason; });
    if (it == no_delta.end()) it = no_delta.insert(no_delta.end(), {d.reason, {}});
    std::string item = fmt::format("{} [{}]", d.name, d.role);
    if (std::find(it->second.begin(), it->second.end(), item) == it->second.end()) it->second.push_back(item);
  }
  for (const auto& [reason, items] : no_delta) {
    if (reason.ends_with("in either run")) {
      out << fmt::format("  no delta, {}: {} metric/role pairs\n", reason, items.size());
    } else {
      out << fmt::format("  no delta, {} ({}): {}\n", reason, items.size(), fmt::join(items, ", "));
    }
  }
}

nlohmann::ordered_json PipeJson(const PipeSummary& s, const PipeSummary* compare, const std::vector<MetricDelta>* deltas) {
  auto one = [](const PipeSummary& s) {
    nlohmann::ordered_json j;
    j["inputs"] = s.inputs;
    if (s.op) {
      nlohmann::ordered_json op;
      for (const auto& [k, v] : s.op->fields) op[k] = v;
      j["op"] = op;
    } else {
      j["op"] = nullptr;
    }
    j["core_index"] = fmt::format("aic: block_id; aiv: block_id * {} + k of vector<k>", s.vectors_per_block);
    j["default_roles"] = s.default_roles;
    nlohmann::ordered_json roles = nlohmann::ordered_json::array();
    for (const RoleInfo& r : s.roles) {
      roles.push_back({{"name", r.name},
                       {"declared", r.declared},
                       {"declared_cores", s.default_roles ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.declared_cores)},
                       {"found_cores", r.found_cores},
                       {"missing", r.missing.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.missing)}});
    }
    j["roles"] = roles;
    j["unassigned_cores"] = s.unassigned.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.unassigned);
    const ExportCoverage& cov = s.coverage;
    nlohmann::ordered_json cov_tables = nlohmann::ordered_json::array();
    for (const TableCoverage& t : cov.tables)
      cov_tables.push_back({{"table", t.table}, {"aic_found", t.aic_found}, {"aiv_found", t.aiv_found},
                            {"missing", t.missing}, {"extra", t.extra}});
    j["export_coverage"] = {{"checked", cov.checked},
                            {"why_not", cov.why_not},
                            {"op_type", cov.op_type},
                            {"block_dim", cov.block_dim},
                            {"mix_block_dim", cov.mix_block_dim},
                            {"expected_aic", cov.expected_aic},
                            {"expected_aiv", cov.expected_aiv},
                            {"tables", cov_tables},
                            {"problems", cov.problems}};
    nlohmann::ordered_json tables = nlohmann::ordered_json::array();
    for (const auto& [n, f] : s.tables) {
      tables.push_back({{"name", n},
                        {"file", f.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f)},
                        {"provided", !f.empty()}});
    }
    j["tables"] = tables;
    nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
    for (const MetricEntry& m : s.metrics) {
      nlohmann::ordered_json per_role = nlohmann::ordered_json::object();
      for (const RoleValue& rv : m.per_role) per_role[rv.role] = SummaryJson(rv);
      metrics.push_back({{"name", m.name},
                         {"table", m.table},
                         {"provided", m.provided},
                         {"reason", m.provided ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(kNotProvided)},
                         {"per_role", per_role}});
    }
    j["metrics"] = metrics;
    return j;
  };
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["spread"] = "max - min over the role's cores";
  nlohmann::ordered_json base = one(s);
  for (auto& [k, v] : base.items()) j[k] = v;
  if (compare && deltas) {
    j["compare"] = one(*compare);
    nlohmann::ordered_json ds = nlohmann::ordered_json::array();
    for (const MetricDelta& d : *deltas) {
      ds.push_back({{"name", d.name},
                    {"table", d.table},
                    {"role", d.role},
                    {"base_mean", OptNum(d.base_mean)},
                    {"compare_mean", OptNum(d.compare_mean)},
                    {"delta", OptNum(d.delta)},
                    {"delta_pct", OptNum(d.delta_pct)},
                    {"reason", d.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(d.reason)}});
    }
    j["deltas"] = ds;
  }
  return j;
}

}  // namespace optrace::evidence
