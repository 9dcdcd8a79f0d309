#include "core/roles.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {
using format::CoreKind;

TEST(RolesTest, ParsesRolesAndFindsCores) {
  auto roles = ParseRoles("# dispatch roles\nsend: aiv 0-15\nrecv: aiv 16-31\ngemm: aic 0-23\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  ASSERT_EQ(roles->roles.size(), 3u);
  EXPECT_EQ(roles->Find(CoreKind::kAiv, 15)->name, "send");
  EXPECT_EQ(roles->Find(CoreKind::kAiv, 16)->name, "recv");
  EXPECT_EQ(roles->Find(CoreKind::kAic, 16)->name, "gemm");
  EXPECT_EQ(roles->Find(CoreKind::kAiv, 32), nullptr);
}

TEST(RolesTest, SingleIndicesListsAndRepeatedNamesMerge) {
  auto roles = ParseRoles("quant: aiv 3, 7-8\nquant: aic 1\n", "r.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  ASSERT_EQ(roles->roles.size(), 1u);
  EXPECT_EQ(roles->roles[0].ranges.size(), 3u);
  EXPECT_NE(roles->Find(CoreKind::kAiv, 8), nullptr);
  EXPECT_NE(roles->Find(CoreKind::kAic, 1), nullptr);
  EXPECT_EQ(roles->Find(CoreKind::kAiv, 4), nullptr);
}

TEST(RolesTest, OverlapNamesBothLines) {
  auto roles = ParseRoles("send: aiv 0-15\nrecv: aiv 10-31\n", "roles.txt");
  ASSERT_FALSE(roles.ok());
  EXPECT_EQ(roles.status().message(),
            "roles.txt:2: aiv 10-31 overlaps role 'send' declared on line 1; a core has one role");
}

TEST(RolesTest, UnknownKindIsRejectedWithTheExpectedForm) {
  auto roles = ParseRoles("send: cube 0-3\n", "roles.txt");
  ASSERT_FALSE(roles.ok());
  EXPECT_NE(roles.status().message().find("roles.txt:1: core kind 'cube' is not aic or aiv"), std::string::npos);
}

TEST(RolesTest, EmptyFileIsRejected) {
  auto roles = ParseRoles("# nothing\n", "roles.txt");
  ASSERT_FALSE(roles.ok());
  EXPECT_NE(roles.status().message().find("no roles defined"), std::string::npos);
}

TEST(RolesTest, CoverageNamesMissingCoresAndCoresWithoutRole) {
  auto roles = ParseRoles("send: aiv 0-3\nghost: aic 8\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  using format::CoreKind;
  RoleCoverage c = CheckRoleCoverage(*roles, {{CoreKind::kAiv, 0}, {CoreKind::kAiv, 1}, {CoreKind::kAiv, 7},
                                              {CoreKind::kAic, 0}});
  ASSERT_EQ(c.roles.size(), 2u);
  EXPECT_EQ(c.roles[0].declared, "aiv 0-3");
  EXPECT_EQ(c.roles[0].declared_cores, 4u);
  EXPECT_EQ(c.roles[0].found_cores, 2u);
  EXPECT_EQ(c.roles[0].missing, "aiv 2-3");
  EXPECT_EQ(c.roles[1].found_cores, 0u);
  EXPECT_EQ(c.roles[1].missing, "aic 8");
  EXPECT_EQ(c.unassigned, "aic 0; aiv 7");
}

}  // namespace
}  // namespace optrace
