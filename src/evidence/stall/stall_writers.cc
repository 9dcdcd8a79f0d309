// Text and JSON writers for stall summaries; every share names its denominator.
#include <fmt/format.h>

#include "evidence/stall/stall.h"

namespace optrace::evidence {
namespace {

std::string Pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : "-"; }

std::string Top(const StallGroup& g) {
  const ReasonShare* t = g.TopStall();
  return t ? fmt::format("{} {}", t->reason, Pct(t->share_of_not_issued)) : "-";
}

nlohmann::ordered_json OptNum(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json GroupJson(const StallGroup& g, std::string_view key_name) {
  nlohmann::ordered_json j;
  if (!key_name.empty()) j[std::string(key_name)] = g.key;
  j["all_samples"] = g.all_samples;
  j["active_samples"] = g.active_samples;
  j["not_issued_samples"] = g.not_issued_samples;
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  for (const ReasonShare& r : g.reasons) {
    reasons.push_back({{"reason", r.reason},
                       {"samples", r.samples},
                       {"share_of_all_samples", OptNum(r.share_of_all)},
                       {"share_of_not_issued_samples", OptNum(r.share_of_not_issued)}});
  }
  j["reasons"] = reasons;
  return j;
}

}  // namespace

void WriteStallText(const StallTable& t, const StallReport& r, std::ostream& out) {
  const StallGroup& g = r.overall;
  out << fmt::format("stall: {}\n", t.input);
  out << fmt::format("samples: {} in all; {} active (issued); {} not issued\n", g.all_samples, g.active_samples,
                     g.not_issued_samples);
  out << fmt::format("\"of all\" = samples / all samples ({}); \"of not issued\" = samples / not-issued samples ({}), "
                     "active excluded\n",
                     g.all_samples, g.not_issued_samples);
  out << fmt::format("  {:<30} {:>10} {:>8} {:>14}\n", "reason", "samples", "of all", "of not issued");
  for (const ReasonShare& s : g.reasons) {
    out << fmt::format("  {:<30} {:>10} {:>8} {:>14}\n", s.reason, s.samples, Pct(s.share_of_all),
                       Pct(s.share_of_not_issued));
  }
  if (!r.per_core.empty()) {
    out << "\nper core (active: of the core's samples; top stall: of the core's not-issued samples):\n";
    out << fmt::format("  {:<12} {:>10} {:>8}  {}\n", "core", "samples", "active", "top stall");
    for (const StallGroup& c : r.per_core) {
      out << fmt::format("  {:<12} {:>10} {:>8}  {}\n", c.key, c.all_samples,
                         Pct(c.all_samples ? std::optional<double>(static_cast<double>(c.active_samples) /
                                                                   static_cast<double>(c.all_samples))
                                           : std::nullopt),
                         Top(c));
    }
  }
  if (!r.per_location.empty()) {
    constexpr size_t kShown = 20;
    out << fmt::format("\nper source line / pc, top {} by samples (of all: of the file's {} samples; active: of the "
                       "line's samples; top stall: of the line's not-issued samples):\n",
                       std::min(kShown, r.per_location.size()), g.all_samples);
    out << fmt::format("  {:<32} {:>10} {:>8} {:>8}  {}\n", "location", "samples", "of all", "active", "top stall");
    for (size_t i = 0; i < r.per_location.size() && i < kShown; ++i) {
      const StallGroup& l = r.per_location[i];
      out << fmt::format("  {:<32} {:>10} {:>8} {:>8}  {}\n", l.key, l.all_samples,
                         Pct(static_cast<double>(l.all_samples) / static_cast<double>(g.all_samples)),
                         Pct(static_cast<double>(l.active_samples) / static_cast<double>(l.all_samples)), Top(l));
    }
    if (r.per_location.size() > kShown) {
      out << fmt::format("  ... {} more locations in --format json\n", r.per_location.size() - kShown);
    }
  }
  out << "\nsamples are sampled instruction states, not time: do not multiply them by a cycle count\n";
  for (const std::string& w : r.warnings) out << "warning: " << w << "\n";
}

nlohmann::ordered_json StallJson(const StallTable& t, const StallReport& r) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["input"] = t.input;
  j["denominators"] = {
      {"share_of_all_samples", "samples / all samples of the group (active included)"},
      {"share_of_not_issued_samples", "samples / not-issued samples of the group (all minus active); null for active"}};
  j["overall"] = GroupJson(r.overall, "");
  nlohmann::ordered_json cores = nlohmann::ordered_json::array();
  for (const StallGroup& c : r.per_core) cores.push_back(GroupJson(c, "core"));
  j["per_core"] = t.has_core ? cores : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json locs = nlohmann::ordered_json::array();
  for (const StallGroup& l : r.per_location) {
    nlohmann::ordered_json lj = GroupJson(l, "location");
    lj["share_of_file_samples"] = static_cast<double>(l.all_samples) / static_cast<double>(r.overall.all_samples);
    locs.push_back(lj);
  }
  j["per_location"] = t.has_location ? locs : nlohmann::ordered_json(nullptr);
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace optrace::evidence
