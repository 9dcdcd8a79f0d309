#include "core/roles.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "core/file_io.h"

namespace optrace {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool ParseIndex(std::string_view s, uint32_t& out) {
  s = Trim(s);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

const char* KindName(format::CoreKind k) { return k == format::CoreKind::kAic ? "aic" : "aiv"; }

}  // namespace

const Role* RoleMap::Find(format::CoreKind kind, uint32_t index) const {
  for (const Role& r : roles) {
    for (const RoleRange& rr : r.ranges) {
      if (rr.kind == kind && index >= rr.first && index <= rr.last) return &r;
    }
  }
  return nullptr;
}

Result<RoleMap> ParseRoles(std::string_view text, std::string_view origin) {
  RoleMap map;
  int line_no = 0;
  constexpr std::string_view kHint = "expected 'name: aic|aiv A-B[,C-D...]', e.g. 'send: aiv 0-15'";
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return BadInputError("{}:{}: no ':' after the role name; {}", origin, line_no, kHint);
    std::string name(Trim(line.substr(0, colon)));
    std::string_view rest = Trim(line.substr(colon + 1));
    if (name.empty()) return BadInputError("{}:{}: empty role name; {}", origin, line_no, kHint);
    size_t sp = rest.find_first_of(" \t");
    std::string_view kind_word = rest.substr(0, sp);
    format::CoreKind kind;
    if (kind_word == "aiv" || kind_word == "AIV") {
      kind = format::CoreKind::kAiv;
    } else if (kind_word == "aic" || kind_word == "AIC") {
      kind = format::CoreKind::kAic;
    } else {
      return BadInputError("{}:{}: core kind '{}' is not aic or aiv; {}", origin, line_no, kind_word, kHint);
    }
    std::string_view ranges = sp == std::string_view::npos ? std::string_view() : Trim(rest.substr(sp));
    if (ranges.empty()) return BadInputError("{}:{}: role '{}' lists no cores; {}", origin, line_no, name, kHint);
    Role* role = nullptr;
    for (Role& r : map.roles) {
      if (r.name == name) role = &r;
    }
    if (!role) {
      map.roles.push_back(Role{name, {}});
      role = &map.roles.back();
    }
    while (!ranges.empty()) {
      size_t comma = ranges.find(',');
      std::string_view item = Trim(ranges.substr(0, comma));
      ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
      RoleRange rr{kind, 0, 0, line_no};
      size_t dash = item.find('-');
      bool ok = dash == std::string_view::npos
                    ? ParseIndex(item, rr.first) && ParseIndex(item, rr.last)
                    : ParseIndex(item.substr(0, dash), rr.first) && ParseIndex(item.substr(dash + 1), rr.last);
      if (!ok) return BadInputError("{}:{}: '{}' is not an index or an A-B range; {}", origin, line_no, item, kHint);
      if (rr.last < rr.first) {
        return BadInputError("{}:{}: range {}-{} ends before it starts", origin, line_no, rr.first, rr.last);
      }
      for (const Role& other : map.roles) {
        for (const RoleRange& o : other.ranges) {
          if (o.kind == kind && rr.first <= o.last && o.first <= rr.last) {
            return BadInputError("{}:{}: {} {}-{} overlaps role '{}' declared on line {}; a core has one role",
                                 origin, line_no, KindName(kind), rr.first, rr.last, other.name, o.line);
          }
        }
      }
      role->ranges.push_back(rr);
    }
  }
  if (map.roles.empty()) return BadInputError("{}: no roles defined; {}", origin, kHint);
  return map;
}

std::string CompressCores(format::CoreKind kind, const std::vector<uint32_t>& sorted) {
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out += out.empty() ? fmt::format("{} ", KindName(kind)) : ",";
    out += j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]);
    i = j + 1;
  }
  return out;
}

RoleCoverage CheckRoleCoverage(const RoleMap& roles, const std::set<std::pair<format::CoreKind, uint32_t>>& cores) {
  using format::CoreKind;
  RoleCoverage c;
  for (const Role& role : roles.roles) {
    RoleFit fit;
    fit.name = role.name;
    std::vector<std::string> parts, missing;
    for (CoreKind k : {CoreKind::kAic, CoreKind::kAiv}) {
      std::vector<uint32_t> declared, absent;
      for (const RoleRange& rr : role.ranges) {
        if (rr.kind != k) continue;
        uint64_t last = std::min<uint64_t>(rr.last, uint64_t{rr.first} + kMaxDeclaredCores - 1);
        for (uint64_t i = rr.first; i <= last; ++i) declared.push_back(static_cast<uint32_t>(i));
      }
      std::sort(declared.begin(), declared.end());
      fit.declared_cores += declared.size();
      for (uint32_t i : declared) {
        if (!cores.count({k, i})) absent.push_back(i);
      }
      if (!declared.empty()) parts.push_back(CompressCores(k, declared));
      if (!absent.empty()) missing.push_back(CompressCores(k, absent));
    }
    fit.declared = fmt::format("{}", fmt::join(parts, "; "));
    fit.missing = fmt::format("{}", fmt::join(missing, "; "));
    c.roles.push_back(std::move(fit));
  }
  for (const auto& [kind, index] : cores) {
    if (const Role* r = roles.Find(kind, index)) ++c.roles[static_cast<size_t>(r - roles.roles.data())].found_cores;
  }
  for (CoreKind k : {CoreKind::kAic, CoreKind::kAiv}) {
    std::vector<uint32_t> free;
    for (const auto& [kind, index] : cores) {
      if (kind == k && roles.Find(kind, index) == nullptr) free.push_back(index);
    }
    if (!free.empty()) c.unassigned += (c.unassigned.empty() ? "" : "; ") + CompressCores(k, free);
  }
  return c;
}

Result<RoleMap> LoadRoles(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseRoles(text, path.string());
}

}  // namespace optrace
