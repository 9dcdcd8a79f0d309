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
#include <string>
#include <string_view>
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

}  // namespace optrace
