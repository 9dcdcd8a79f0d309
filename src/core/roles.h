// RoleMap: which group of cores does what ("send: aiv 0-15"), for per-role statistics.
//
//   OPTRACE_ASSIGN_OR_RETURN(RoleMap roles, LoadRoles("roles.txt"));
//   if (const Role* r = roles.Find(format::CoreKind::kAiv, 17)) ... r->name == "recv"
//
// File format: one role per line, `name: kind ranges`, kind `aic` or `aiv`, ranges are
// inclusive `a-b` or single indices separated by commas; '#' starts a comment; blank lines
// are ignored. A role may span several lines (same name twice adds ranges). A core may belong
// to one role only.
//
//   send: aiv 0-15
//   recv: aiv 16-31
//   gemm: aic 0-23
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "optrace/format.h"

namespace optrace {

struct RoleRange {
  format::CoreKind kind = format::CoreKind::kAiv;
  uint32_t first = 0;
  uint32_t last = 0;  // inclusive
  int line = 0;       // where it was declared
};

struct Role {
  std::string name;
  std::vector<RoleRange> ranges;
};

struct RoleMap {
  std::vector<Role> roles;  // in file order
  // The role that owns core `index` of `kind`, or nullptr.
  const Role* Find(format::CoreKind kind, uint32_t index) const;
};

Result<RoleMap> ParseRoles(std::string_view text, std::string_view origin);
Result<RoleMap> LoadRoles(const std::filesystem::path& path);

// How a roles file fits the cores some data has (an msprof op export, a set of dumps), so that
// `pipe` and `collect --roles` warn the same way about roles that match nothing and cores that
// no role covers.
//
//   RoleCoverage c = CheckRoleCoverage(roles, {{CoreKind::kAiv, 0}, {CoreKind::kAiv, 1}});
//   for (const RoleFit& f : c.roles) if (f.found_cores == 0) ...   // f.declared: "aiv 64-79"
struct RoleFit {
  std::string name;
  std::string declared;       // "aiv 0-15" (ranges merged, sorted)
  size_t declared_cores = 0;
  size_t found_cores = 0;     // cores of the data that belong to this role
  std::string missing;        // declared cores the data lacks, "aiv 8-15"
};

struct RoleCoverage {
  std::vector<RoleFit> roles;  // in role order
  std::string unassigned;      // AIC/AIV cores of the data that no role covers, "aic 0; aiv 32-39"
};

// A range wider than any chip ("aiv 0-99999") counts as its first kMaxDeclaredCores indices in
// declared_cores and missing.
inline constexpr uint32_t kMaxDeclaredCores = 4096;

RoleCoverage CheckRoleCoverage(const RoleMap& roles, const std::set<std::pair<format::CoreKind, uint32_t>>& cores);

// "aiv 0-3,7" from a kind and sorted indices.
std::string CompressCores(format::CoreKind kind, const std::vector<uint32_t>& sorted);

}  // namespace optrace
