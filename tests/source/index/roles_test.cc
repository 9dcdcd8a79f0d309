#include "source/index/roles.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source/index/index_test_util.h"
#include "source/index/words.h"

namespace optrace::source::index {
namespace {

using ::testing::ElementsAre;

TEST(RolesTest, RoleWordOfDropsCountAndIndexWords) {
  EXPECT_EQ(RoleWordOf("sendCoreNum"), "send");
  EXPECT_EQ(RoleWordOf("kRecvCore"), "recv");
  EXPECT_EQ(RoleWordOf("SERVER_RANK_SIZE"), "server-rank");
  EXPECT_EQ(RoleWordOf("batchWriteCoreNum_"), "batch-write");
  EXPECT_EQ(RoleWordOf("coreNum"), "");
  EXPECT_EQ(RoleWordOf("48"), "");
}

TEST(RolesTest, ReadsCoreIndexKnowsTheIndexNamesOfRealKernels) {
  EXPECT_TRUE(ReadsCoreIndex("aivIdx < sendCoreNum"));
  EXPECT_TRUE(ReadsCoreIndex("aivId_ == 0"));                      // dispatch_normal_a2
  EXPECT_TRUE(ReadsCoreIndex("AscendC::GetSubBlockIdx() == 1"));
  EXPECT_TRUE(ReadsCoreIndex("this->vectorBlockIdx >= recvCoreNum"));
  EXPECT_TRUE(ReadsCoreIndex("role_"));
  EXPECT_FALSE(ReadsCoreIndex("tokenNum > 0"));
  EXPECT_FALSE(ReadsCoreIndex("i < coreNum"));
}

// Roles of every control of one function; the main call of a control is the first call in its body
// (call_graph.cc resolves calls to pick it; here every call counts).
class RoleOfControlTest : public ::testing::Test {
 protected:
  std::vector<std::string> Roles(const std::string& body) {
    files_ = std::make_unique<IndexedFiles>(
        std::initializer_list<std::pair<std::string, std::string>>{{"op_kernel/x.h", "void f() {\n" + body + "}\n"}});
    const FunctionDef* f = files_->Function("f");
    EXPECT_NE(f, nullptr);
    if (!f) return {};
    const FunctionBody& b = files_->index().Body(*f);
    auto main_call = [&](int control) -> std::string {
      for (const CallSite& c : b.calls) {
        if (c.pos < b.controls[static_cast<size_t>(control)].body_begin) continue;  // the condition's calls
        for (int k = c.control; k >= 0; k = b.controls[static_cast<size_t>(k)].parent)
          if (k == control) return KebabCase(c.name);
      }
      return "";
    };
    std::vector<std::string> out;
    for (size_t i = 0; i < b.controls.size(); ++i)
      out.push_back(RoleOfControl(b, *f->stream, static_cast<int>(i), main_call));
    return out;
  }
  std::unique_ptr<IndexedFiles> files_;
};

TEST_F(RoleOfControlTest, CountComparandNamesTheIfAndTheMainCallNamesTheElse) {
  EXPECT_THAT(Roles("  if (aivIdx < sendCoreNum) {\n"
                    "    SendTokens();\n"
                    "  } else {\n"
                    "    RecvTokens();\n"
                    "  }\n"),
              ElementsAre("send", "recv-tokens"));
}

TEST_F(RoleOfControlTest, BranchWithoutAnElseIsNotARole) {
  // dispatch_normal_a2 Process(): `if (aivId_ == 0) { CleanUp(); }` is one core's extra work.
  EXPECT_THAT(Roles("  if (aivId_ == 0) {\n"
                    "    CleanUp();\n"
                    "  }\n"),
              ElementsAre(""));
}

TEST_F(RoleOfControlTest, BranchThatOnlyReturnsIsADataSplit) {
  // dispatch_normal_a2 SetIpcFlag(): the cores beyond SERVER_RANK_SIZE have nothing to do.
  EXPECT_THAT(Roles("  if (aivId_ >= SERVER_RANK_SIZE) {\n"
                    "    return;\n"
                    "  } else {\n"
                    "    total += 1;\n"
                    "  }\n"
                    "  SetFlag(localSet);\n"),
              ElementsAre("", ""));
}

TEST_F(RoleOfControlTest, ComparandWithoutAWordLeavesTheNameToTheMainCall) {
  EXPECT_THAT(Roles("  if (AscendC::GetSubBlockIdx() == 0) {\n"
                    "    DispatchBetweenServer();\n"
                    "  } else {\n"
                    "    CombineWithinServer();\n"
                    "  }\n"),
              ElementsAre("dispatch-between-server", "combine-within-server"));
}

TEST_F(RoleOfControlTest, DataPartitionCountIsNotARoleName) {
  // moe_init_routing: `blockIdx < needCoreNum` splits data; the work says what the cores do.
  EXPECT_THAT(Roles("  if (blockIdx < needCoreNum) {\n"
                    "    GatherOut();\n"
                    "  } else {\n"
                    "    WaitOthers();\n"
                    "  }\n"),
              ElementsAre("gather-out", "wait-others"));
}

TEST_F(RoleOfControlTest, ElseIfChainNamesEachBranch) {
  EXPECT_THAT(Roles("  if (aivIdx < sendCoreNum) {\n"
                    "    SendTokens();\n"
                    "  } else if (aivIdx < recvCoreEnd) {\n"
                    "    RecvTokens();\n"
                    "  } else {\n"
                    "    BatchWrite();\n"
                    "  }\n"),
              ElementsAre("send", "", "recv", "batch-write"));
}

// DISABLED: the first count word of the condition names the role, so the receivers are named "send".
TEST_F(RoleOfControlTest, CumulativeBoundNamesTheRoleItAdds) {
  // The second role's cores follow the first's: `aivIdx < sendCoreNum + recvCoreNum` selects the receivers.
  EXPECT_THAT(Roles("  if (aivIdx < sendCoreNum) {\n"
                    "    SendTokens();\n"
                    "  } else if (aivIdx < sendCoreNum + recvCoreNum) {\n"
                    "    RecvTokens();\n"
                    "  } else {\n"
                    "    BatchWrite();\n"
                    "  }\n"),
              ElementsAre("send", "", "recv", "batch-write"));
}

TEST_F(RoleOfControlTest, RoleEnumNamesSwitchCasesAndComparisons) {
  EXPECT_THAT(Roles("  switch (role_) {\n"
                    "    case AivRole::kSend:\n"
                    "      SendTokens();\n"
                    "      break;\n"
                    "    case AivRole::kRecv:\n"
                    "      RecvTokens();\n"
                    "      break;\n"
                    "  }\n"
                    "  if (ctx.Role() == AivRole::kRecv) {\n"
                    "    Drain();\n"
                    "  } else {\n"
                    "    Fill();\n"
                    "  }\n"),
              ElementsAre("", "send", "recv", "recv", "fill"));
}

}  // namespace
}  // namespace optrace::source::index
