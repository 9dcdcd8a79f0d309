// optrace instrument --check-compile: the compile check before and after the edits, with the
// emulator standing in for a CANN SDK; edits that add a compile error are undone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/cli_runner.h"
#include "testing/example_tree.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

const std::string kEmulatorSdk = std::string(OPTRACE_SOURCE_DIR) + "/emu/include";
// The example operator's own build names optrace's include/ (its CMakeLists.txt): its -I.
const std::string kExampleInclude = std::string(OPTRACE_SOURCE_DIR) + "/include";

TEST(InstrumentCheckCompileTest, CleanEditsAreKeptAndSaidToAddNoError) {
  TempTree t;
  testing::CopyUninstrumentedExample(t);
  const std::string before = t.Read("op_kernel/dispatch/moe_dispatch.h");
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk, "-I", kExampleInclude});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("compile check (optrace AscendC emulator"));
  EXPECT_THAT(r.out, HasSubstr("none new"));
  EXPECT_NE(t.Read("op_kernel/dispatch/moe_dispatch.h"), before) << "the marks were written";
}

TEST(InstrumentCheckCompileTest, EditsThatAddACompileErrorAreUndone) {
  TempTree t;
  testing::CopyUninstrumentedExample(t);
  // An include folder of the user's whose optrace/trace.h breaks every inserted mark.
  t.Write("broken/optrace/trace.h",
          "#pragma once\n#define TRACE_POINT(label, type) 0\n#define MoeTracing(...) optrace_planted_error(__VA_ARGS__)\n"
          "#define OPTRACE_KERNEL_BEGIN() ((void)0)\n#define OPTRACE_KERNEL_END(p) ((void)(p))\n");
  const std::string dispatch = t.Read("op_kernel/dispatch/moe_dispatch.h");
  const std::string entry = t.Read("op_kernel/moe_dispatch_combine.cpp");
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk, "-I", t.path("broken")});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.err, HasSubstr("optrace_planted_error"));
  EXPECT_THAT(r.err, HasSubstr("[on a line optrace inserted or rewrote]"));
  EXPECT_THAT(r.err, HasSubstr("refused: the edits add"));
  EXPECT_EQ(t.Read("op_kernel/dispatch/moe_dispatch.h"), dispatch);
  EXPECT_EQ(t.Read("op_kernel/moe_dispatch_combine.cpp"), entry);
}

TEST(InstrumentCheckCompileTest, WithoutAnSdkItSaysSoAndInstruments) {
  unsetenv("ASCEND_HOME_PATH");
  unsetenv("ASCEND_TOOLKIT_HOME");
  if (std::filesystem::exists("/usr/local/Ascend/ascend-toolkit/latest")) GTEST_SKIP() << "a CANN toolkit is installed";
  TempTree t;
  testing::CopyUninstrumentedExample(t);
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("compile check not run: no CANN SDK"));
  EXPECT_THAT(r.out, HasSubstr("instrumented"));
}

TEST(InstrumentCheckCompileTest, CheckCompileWithRevertIsAUsageError) {
  TempTree t;
  testing::CopyUninstrumentedExample(t);
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--revert"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--revert"));
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Issue 53.15: a file saved while the compile check runs (here by the "compiler" itself, a wrapper
// that edits one source on its first call and then compiles) is never overwritten with the text
// instrument read before the check; the command says which file and changes none of it.
TEST(InstrumentCheckCompileTest, AFileSavedDuringTheCompileCheckIsNotOverwritten) {
  TempTree t;
  testing::CopyUninstrumentedExample(t);
  const std::string edited = t.path("op_kernel/dispatch/moe_dispatch.h");
  t.Write("cxx.sh", "#!/bin/sh\nif [ ! -e '" + t.path("edited") + "' ]; then touch '" + t.path("edited") +
                        "'; printf '// saved by the user during the check\\n' >> '" + edited + "'; fi\nexec c++ \"$@\"\n");
  std::filesystem::permissions(t.path("cxx.sh"), std::filesystem::perms::owner_all);
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk, "-I", kExampleInclude,
                   "--cxx", t.path("cxx.sh")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("changed on disk while instrument ran"));
  EXPECT_THAT(t.Read("op_kernel/dispatch/moe_dispatch.h"), HasSubstr("// saved by the user during the check\n"));
  for (const auto& e : std::filesystem::recursive_directory_iterator(t.path("op_kernel"))) {
    if (!e.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(e.path(), t.path()).string();
    EXPECT_THAT(t.Read(rel), ::testing::Not(HasSubstr("optrace:auto"))) << rel << ": no file is half done";
  }
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Issue 50: host sources instrument edits (here a launcher that allocates, passes and saves the
// buffer) are syntax-checked with the host compiler and the operator's include folders, beside
// the kernel in CPU-debug mode. `acl_stub.h` stands in for acl/acl.h with what a launcher uses.
std::string AclStub(bool with_malloc_host) {
  return std::string("#pragma once\n#include <cstddef>\n#include <cstdint>\ntypedef void* aclrtStream;\n"
                     "enum { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEMCPY_DEVICE_TO_HOST = 2 };\n"
                     "int aclrtMalloc(void** p, size_t n, int policy);\nint aclrtMemset(void* p, size_t max, int v, size_t n);\n") +
         (with_malloc_host ? "int aclrtMallocHost(void** p, size_t n);\n" : "") +
         "int aclrtMemcpy(void* d, size_t max, const void* s, size_t n, int kind);\nint aclrtFreeHost(void* p);\n"
         "int aclrtFree(void* p);\nint aclrtSynchronizeStream(aclrtStream s);\n"
         "int aclrtlaunch_k(uint32_t block_dim, aclrtStream s, ...);\n#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel\n";
}

TempTree KernelWithAHostLauncher(bool with_malloc_host) {
  return TempTree({{"op_kernel/k.cpp",
                    "#include \"kernel_operator.h\"\n\n__aicore__ inline void Step(GM_ADDR x) { (void)x; }\n\n"
                    "extern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n    for (int i = 0; i < 2; ++i) {\n"
                    "        Step(x);\n    }\n}\n"},
                   {"host/launch.cpp",
                    "#include \"acl_stub.h\"\n\nvoid launch(aclrtStream s, void* x)\n{\n"
                    "    ACLRT_LAUNCH_KERNEL(k)(8, s, x);\n    aclrtSynchronizeStream(s);\n}\n"},
                   {"inc/acl_stub.h", AclStub(with_malloc_host)}});
}

TEST(InstrumentCheckCompileTest, TheHostSourcesItEditsAreCompiledToo) {
  TempTree t = KernelWithAHostLauncher(true);
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk, "-I", t.path("inc")});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(t.Read("host/launch.cpp"), HasSubstr("aclrtMallocHost(&optrace_host"));
  EXPECT_THAT(r.out, HasSubstr("(kernel 1 compile(s), 0 error(s), 0 stopped at a fatal error; "
                               "host 1 compile(s), 0 error(s), 0 stopped at a fatal error)"));
}

TEST(InstrumentCheckCompileTest, AHostEditThatDoesNotCompileIsUndone) {
  TempTree t = KernelWithAHostLauncher(false);
  const std::string launcher = t.Read("host/launch.cpp");
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk, "-I", t.path("inc")});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.err, HasSubstr("host/launch.cpp:"));
  EXPECT_THAT(r.err, HasSubstr("aclrtMallocHost"));
  EXPECT_THAT(r.err, HasSubstr("[on a line optrace inserted or rewrote]"));
  EXPECT_EQ(t.Read("host/launch.cpp"), launcher);
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// A msopgen-style operator reads its tiling with GET_TILING_DATA, which the build generates from
// the host's BEGIN_TILING_DATA_DEF: without the stand-in every use of the data was an error
// before and after, and the kernel could never count as compiling.
TEST(InstrumentCheckCompileTest, AKernelReadingItsTilingCompilesWithTheStandIn) {
  TempTree t({{"op_host/add_tiling.h",
               "BEGIN_TILING_DATA_DEF(AddTilingData)\n  TILING_DATA_FIELD_DEF(uint32_t, totalLength);\n"
               "END_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(AddCustom, AddTilingData)\n"},
              {"op_kernel/add.cpp",
               "#include \"kernel_operator.h\"\n\n__aicore__ inline void Step(GM_ADDR x, uint32_t n) { (void)x; (void)n; }\n\n"
               "extern \"C\" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)\n{\n"
               "    GET_TILING_DATA(tiling_data, tiling);\n"
               "    for (uint32_t i = 0; i < tiling_data.totalLength; ++i) {\n        Step(x, i);\n    }\n}\n"}});
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("compile(s), 0 error(s) before and after, none new"));
  auto lint = RunCli({"lint", "--op", t.path(), "--compile", "--sdk", kEmulatorSdk, "--format", "json"});
  EXPECT_THAT(lint.out, HasSubstr("\"tiling_standin\": \"AddTilingData from op_host/add_tiling.h\""));
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

// Found by the compiler on EvoKernel's conv kernels: a loop's B mark went between `#pragma unroll`
// and its `for` ("expected a for, while, or do-while loop to follow '#pragma unroll'"). The mark
// goes above the pragma.
TEST(InstrumentCheckCompileTest, ALoopsMarkGoesAboveThePragmaThatAppliesToIt) {
  TempTree t({{"op_kernel/k.cpp",
               "#include \"kernel_operator.h\"\n\nclass KernelFill {\npublic:\n    __aicore__ inline void Process()\n    {\n"
               "        #pragma unroll\n        for (uint32_t i = 0; i < 16; ++i) {\n            biasUb.SetValue(i, 0.0f);\n"
               "        }\n        for (uint32_t j = 0; j < n; ++j) {\n"
               "            outGm.SetValue(j, biasUb.GetValue(j % 16));\n        }\n    }\n    uint32_t n;\n"
               "    AscendC::LocalTensor<float> biasUb;\n    AscendC::GlobalTensor<float> outGm;\n};\n\n"
               "extern \"C\" __global__ __aicore__ void fill(GM_ADDR y)\n{\n    KernelFill op;\n    op.Process();\n}\n"}});
  auto r = RunCli({"instrument", "--op", t.path(), "--check-compile", "--sdk", kEmulatorSdk, "--cxx", "clang++"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string s = t.Read("op_kernel/k.cpp");
  size_t mark = s.find("MoeTracing(TRACE_POINT(\"kernel-fill bias-ub\", \"B\"))");
  ASSERT_NE(mark, std::string::npos) << s;
  EXPECT_LT(mark, s.find("#pragma unroll")) << s;
  EXPECT_NE(s.find("#pragma unroll\n        for (uint32_t i"), std::string::npos) << "the pragma still precedes its loop";
}

}  // namespace
}  // namespace optrace
