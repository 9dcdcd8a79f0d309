#include "evidence/environment/environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "evidence/report/report.h"
#include "testing/temp_tree.h"

namespace optrace::evidence {
namespace {
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempTree;

constexpr const char* kNpuSmiOutput =
    R"(+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 97.2        37                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3161 / 65536         |
+===========================+===============+====================================================+
| 1     910B3               | OK            | 93.1        36                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          3162 / 65536         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| 0       0                 | 12345         | python                   | 3000                    |
+===========================+===============+====================================================+
)";

// A fake machine: os-release, /proc, an Ascend install and tools on a private PATH.
class FakeMachine {
 public:
  FakeMachine() {
    tree_.Write("etc/os-release",
                "NAME=\"Ubuntu\"\nVERSION=\"22.04.4 LTS (Jammy Jellyfish)\"\n"
                "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\n");
    tree_.Write("proc/cpuinfo",
                "processor\t: 0\nmodel name\t: Fake CPU @ 2.60GHz\n\n"
                "processor\t: 1\nmodel name\t: Fake CPU @ 2.60GHz\n");
    tree_.Write("proc/sys/kernel/osrelease", "5.10.0-fake\n");
    tree_.Write("Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info",
                "package_name=Ascend-cann-toolkit\nversion=8.0.RC3\ninnerversion=V100R001C19SPC001\narch=aarch64\n");
    tree_.Write("Ascend/driver/version.info", "Version=24.1.rc2\nascendhal_version=7.35.23\n");
    tree_.Write("Ascend/firmware/version.info", "Version=7.5.0.1.129\n");
    Script("npu-smi", std::string("cat <<'EOF'\n") + kNpuSmiOutput + "EOF\n");
    Script("msprof",
           "if [ \"$1\" = op ]; then echo 'Usage: msprof op [--options] <app>'; echo '  --kernel-name'; exit 0; fi\n"
           "echo\necho 'Usage: msprof [--options] <app>'\necho '  --output=<path>'\necho '  --application'\n"
           "echo '  --sys-hardware-mem'\nexit 1\n");
    // torch imports, torch_npu does not: both answers are recorded.
    Script("python3", "echo 'torch 2.1.0'\necho 'torch_npu - ModuleNotFoundError'\n");
  }

  void Script(const std::string& name, const std::string& body) const {
    tree_.Write("bin/" + name, "#!/bin/sh\n" + body);
    chmod(tree_.path("bin/" + name).c_str(), 0755);
  }

  EnvironmentOptions Options() const {
    EnvironmentOptions opt;
    opt.os_release = tree_.path("etc/os-release");
    opt.proc_dir = tree_.path("proc");
    opt.toolkit_roots = {tree_.path("Ascend/nowhere"), tree_.path("Ascend/ascend-toolkit/latest")};
    opt.driver_dir = tree_.path("Ascend/driver");
    opt.firmware_dir = tree_.path("Ascend/firmware");
    opt.path = tree_.path("bin") + ":/usr/bin:/bin";  // git from the system
    opt.tool_timeout = std::chrono::milliseconds(5000);
    return opt;
  }

  const TempTree& tree() const { return tree_; }

 private:
  TempTree tree_;
};

EnvironmentInfo Probe(const EnvironmentOptions& opt) {
  auto env = ProbeEnvironment(opt);
  EXPECT_TRUE(env.ok()) << env.status().message();
  return env.ok() ? *env : EnvironmentInfo{};
}

TEST(EnvironmentTest, ReadsEveryItemFromFakeRootsWithItsSource) {
  FakeMachine m;
  EnvironmentInfo env = Probe(m.Options());
  EXPECT_EQ(env.Value("os.name"), "Ubuntu 22.04.4 LTS");
  EXPECT_THAT(env.Find("os.name")->from, HasSubstr("os-release PRETTY_NAME"));
  EXPECT_EQ(env.Value("os.kernel"), "5.10.0-fake");
  EXPECT_EQ(env.Value("cpu.model"), "Fake CPU @ 2.60GHz");
  EXPECT_EQ(env.Value("cpu.count"), "2");
  EXPECT_EQ(env.Value("npu.model"), "910B3 (2 NPUs)");  // the process table is not a device
  EXPECT_EQ(env.Value("npu_smi.version"), "24.1.rc2");
  EXPECT_EQ(env.Value("cann.version"), "8.0.RC3");
  EXPECT_THAT(env.Find("cann.version")->from, HasSubstr("aarch64-linux/ascend_toolkit_install.info version="));
  EXPECT_EQ(env.Value("driver.version"), "24.1.rc2");
  EXPECT_THAT(env.Find("driver.version")->from, HasSubstr("driver/version.info Version="));
  EXPECT_EQ(env.Value("firmware.version"), "7.5.0.1.129");
  EXPECT_EQ(env.Value("msprof.path"), m.tree().path("bin/msprof"));
  // First three non-empty lines, even though --help exits 1.
  EXPECT_EQ(env.Value("msprof.help"), "Usage: msprof [--options] <app> / --output=<path> / --application");
  EXPECT_EQ(env.Value("msopprof.path"), std::nullopt);
  EXPECT_EQ(env.Find("msopprof.path")->from, "msopprof not on PATH");
  EXPECT_THAT(env.probed_at, ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"));
}

// Seed 003's baseline also records `msprof op --help`, the torch / torch_npu versions and the
// trace switches (a kernel exporting timing CSVs as it runs is slower).
TEST(EnvironmentTest, MsprofOpTorchVersionsAndTraceSwitchesAreRecorded) {
  FakeMachine m;
  EnvironmentOptions opt = m.Options();
  opt.switches["DEBUG_CLOCK_ON"] = "1";
  EnvironmentInfo env = Probe(opt);
  EXPECT_EQ(env.Value("msprof_op.help"), "Usage: msprof op [--options] <app> / --kernel-name");
  EXPECT_EQ(env.Value("python.torch"), "2.1.0");
  EXPECT_EQ(env.Value("python.torch_npu"), std::nullopt);
  EXPECT_THAT(env.Find("python.torch_npu")->from, HasSubstr("import torch_npu failed (ModuleNotFoundError)"));
  EXPECT_EQ(env.Value("switch.DEBUG_CLOCK_ON"), "1");
  EXPECT_EQ(env.Value("switch.ASCEND_DEEPEP_DEBUG_CLOCK"), std::nullopt);
  EXPECT_EQ(env.Find("switch.ASCEND_DEEPEP_DEBUG_CLOCK")->from, "not set in the environment");
}

TEST(EnvironmentTest, AbsentToolsAndFilesAreNotFoundNotErrors) {
  TempTree empty;
  EnvironmentOptions opt;
  opt.os_release = empty.path("no-os-release");
  opt.proc_dir = empty.path("proc");
  opt.toolkit_roots = {empty.path("toolkit")};
  opt.driver_dir = empty.path("driver");
  opt.firmware_dir = empty.path("firmware");
  opt.path = empty.path();
  EnvironmentInfo env = Probe(opt);
  for (const char* key :
       {"os.name", "os.kernel", "cpu.model", "cpu.count", "npu_smi.path", "npu.model", "cann.version", "driver.version",
        "firmware.version", "msprof.path", "msprof.help", "msopprof.path", "msprof_op.help", "python.torch",
        "python.torch_npu", "switch.DEBUG_CLOCK_ON", "source.commit", "compile.flags"}) {
    const EnvItem* item = env.Find(key);
    ASSERT_NE(item, nullptr) << key;
    EXPECT_EQ(item->value, std::nullopt) << key;
    EXPECT_FALSE(item->from.empty()) << key;  // says what was looked at
  }
  EXPECT_EQ(env.Find("npu.model")->from, "npu-smi not on PATH");
  EXPECT_THAT(env.Find("cann.version")->from, HasSubstr("toolkit (absent)"));
  EXPECT_EQ(env.Find("source.commit")->from, "no --source given");
  std::ostringstream md;
  WriteEnvironmentMarkdown(env, md);
  EXPECT_THAT(md.str(), HasSubstr("| NPU model | not found | npu-smi not on PATH |"));
}

TEST(EnvironmentTest, HangingToolIsCutAtTheTimeout) {
  FakeMachine m;
  m.Script("msopprof", "sleep 30\n");
  EnvironmentOptions opt = m.Options();
  opt.tool_timeout = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  EnvironmentInfo env = Probe(opt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(env.Value("msopprof.path"), m.tree().path("bin/msopprof"));
  EXPECT_EQ(env.Value("msopprof.help"), std::nullopt);
  EXPECT_THAT(env.Find("msopprof.help")->from, HasSubstr("no answer within 0.3 s"));
}

TEST(EnvironmentTest, ArmCpuInfoNamesImplementerAndPart) {
  FakeMachine m;
  m.tree().Write("proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 200.00\nCPU implementer\t: 0x48\nCPU part\t: 0xd01\n");
  EnvironmentInfo env = Probe(m.Options());
  EXPECT_EQ(env.Value("cpu.model"), "CPU implementer 0x48 (HiSilicon), part 0xd01");
  EXPECT_EQ(env.Value("cpu.count"), "1");
}

TEST(EnvironmentTest, CannVersionFromVersionInfoWhenNoInstallInfo) {
  FakeMachine m;
  m.tree().Write("cann-8.5.0/compiler/version.info", "Version=8.5.0\n");
  EnvironmentOptions opt = m.Options();
  opt.toolkit_roots = {m.tree().path("cann-8.5.0")};
  EnvironmentInfo env = Probe(opt);
  EXPECT_EQ(env.Value("cann.version"), "8.5.0");
  EXPECT_THAT(env.Find("cann.version")->from, HasSubstr("compiler/version.info Version="));
}

int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

TEST(EnvironmentTest, GitCommitAndDirtyStateOfSource) {
  FakeMachine m;
  TempTree repo({{"tracked.txt", "one\n"}});
  std::string git = "git -C '" + repo.path() + "' -c user.name=t -c user.email=t@t -c commit.gpgsign=false ";
  ASSERT_EQ(Sh(git + "init -q && " + git + "add tracked.txt && " + git + "commit -qm init"), 0);
  repo.Write("tracked.txt", "two\n");
  repo.Write("new.txt", "x\n");
  EnvironmentOptions opt = m.Options();
  opt.source_dir = repo.path();
  EnvironmentInfo env = Probe(opt);
  ASSERT_TRUE(env.Value("source.commit"));
  EXPECT_EQ(env.Value("source.commit")->size(), 40u);
  EXPECT_EQ(env.Find("source.commit")->from, "git rev-parse HEAD in " + repo.path());
  EXPECT_EQ(env.Value("source.dirty"), "dirty: 2 changed paths (M tracked.txt; ?? new.txt)");
}

TEST(EnvironmentTest, ASourceTreeFromElsewhereRunsNoneOfItsCommands) {
  // `env --source DIR` ran the tree's core.fsmonitor and clean filter (issue 53.14).
  FakeMachine m;
  TempTree repo({{"tracked.txt", "one\n"}, {".gitattributes", "* filter=planted\n"}});
  const std::string marker = repo.path("ran");
  std::string git = "git -C '" + repo.path() + "' -c user.name=t -c user.email=t@t -c commit.gpgsign=false ";
  ASSERT_EQ(Sh(git + "init -q && " + git + "add . && " + git + "commit -qm init"), 0);
  ASSERT_EQ(Sh(git + "config filter.planted.clean 'sh -c \"touch " + marker + "; cat\"' && " + git +
               "config core.fsmonitor 'sh -c \"touch " + marker + "; exit 1\"'"),
            0);
  repo.Write("tracked.txt", "two, a size change: git must look at its content\n");
  EnvironmentOptions opt = m.Options();
  opt.source_dir = repo.path();
  EnvironmentInfo env = Probe(opt);
  EXPECT_EQ(env.Value("source.dirty"), "dirty: 1 changed path (M tracked.txt)");
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a command of the tree's git configuration ran";
}

TEST(EnvironmentTest, SourceThatIsNoRepositoryIsNotFound) {
  FakeMachine m;
  TempTree plain({{"a.txt", "a"}});
  EnvironmentOptions opt = m.Options();
  opt.source_dir = plain.path();
  EnvironmentInfo env = Probe(opt);
  EXPECT_EQ(env.Value("source.commit"), std::nullopt);
  EXPECT_THAT(env.Find("source.commit")->from, HasSubstr("not a git repository?"));
}

TEST(EnvironmentTest, MissingSourceDirectoryIsAnError) {
  FakeMachine m;
  EnvironmentOptions opt = m.Options();
  opt.source_dir = m.tree().path("no-such-dir");
  auto env = ProbeEnvironment(opt);
  ASSERT_FALSE(env.ok());
  EXPECT_THAT(env.status().message(), HasSubstr("no-such-dir: --source is not a directory"));
}

TEST(EnvironmentTest, CompileCommandsGiveCompilerAndDeduplicatedFlags) {
  const char* json = R"([
    {"directory": "/b", "file": "moe.cpp",
     "arguments": ["/opt/bisheng", "-O2", "-g", "-DFOO=1", "-D", "BAR", "--cce-soc-version", "Ascend910B3",
                   "-I/inc", "-c", "moe.cpp"]},
    {"directory": "/b", "file": "host.cc",
     "command": "/usr/bin/g++ -O2 -DFOO=1 '-DMSG=\"a b\"' -gdwarf-4 --gcc-toolchain=/x -o host.o -c host.cc"}
  ])";
  auto cf = CompileFlagsFromCompileCommands(json, "cc.json");
  ASSERT_TRUE(cf.ok()) << cf.status().message();
  EXPECT_THAT(cf->compilers, ::testing::ElementsAre("/opt/bisheng", "/usr/bin/g++"));
  EXPECT_THAT(cf->flags, ::testing::ElementsAre("-O2", "-g", "-DFOO=1", "-DBAR", "--cce-soc-version=Ascend910B3",
                                                "-DMSG=\"a b\"", "-gdwarf-4"));
}

TEST(EnvironmentTest, MalformedCompileCommandsNameTheFile) {
  auto a = CompileFlagsFromCompileCommands("{\"x\": 1}", "cc.json");
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), StartsWith("cc.json: not a compile_commands.json"));
  auto b = CompileFlagsFromCompileCommands("[{\"file\": \"a.cc\"}]", "cc.json");
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("entry 0 has neither"));
}

TEST(EnvironmentTest, BuildLogFlagsComeOnlyFromCompilerLines) {
  const char* log =
      "-- Configuring with -DCMAKE_BUILD_TYPE=Release\n"
      "[ 50%] Building CXX object moe.o\n"
      "ccache /usr/bin/aarch64-linux-gnu-g++-12 -O3 -DNDEBUG -g -c a.cc\n"
      "bisheng --cce-soc-version=Ascend910B3 -O2 -c moe.cpp\n";
  CompileFlags cf = CompileFlagsFromBuildLog(log);
  EXPECT_THAT(cf.compilers, ::testing::ElementsAre("/usr/bin/aarch64-linux-gnu-g++-12", "bisheng"));
  EXPECT_THAT(cf.flags, ::testing::ElementsAre("-O3", "-DNDEBUG", "-g", "--cce-soc-version=Ascend910B3", "-O2"));
}

TEST(EnvironmentTest, ProbeReadsCompileCommandsAndFieldsFiles) {
  FakeMachine m;
  m.tree().Write("cc.json", R"([{"directory": "/b", "file": "k.cpp", "command": "bisheng -O2 -g -c k.cpp"}])");
  m.tree().Write("run.yaml", "nodes: 2\ncards_per_node: 8\n");
  EnvironmentOptions opt = m.Options();
  opt.compile_commands = m.tree().path("cc.json");
  opt.fields_file = m.tree().path("run.yaml");
  EnvironmentInfo env = Probe(opt);
  EXPECT_EQ(env.Value("compile.compiler"), "bisheng");
  EXPECT_EQ(env.Value("compile.flags"), "-O2 -g");
  EXPECT_EQ(env.Find("compile.flags")->from, m.tree().path("cc.json"));
  EXPECT_EQ(env.Field("nodes"), "2");
  EXPECT_EQ(env.fields_from, m.tree().path("run.yaml"));
}

TEST(EnvironmentTest, UnreadableFieldsFileFailsNamingIt) {
  FakeMachine m;
  EnvironmentOptions opt = m.Options();
  opt.fields_file = m.tree().path("missing.yaml");
  auto env = ProbeEnvironment(opt);
  ASSERT_FALSE(env.ok());
  EXPECT_THAT(env.status().message(), HasSubstr("missing.yaml"));
}

TEST(EnvironmentTest, YamlFieldsKeepUnknownKeysAndCanonicalNames) {
  auto f = ParseFields(
      "# launch\n---\nnodes: 2\ncards_per_node: 8\ntransport: \"HCCS\"\nt: 4096  # tokens\n"
      "dtype: bf16\nqueue_depth: 4\n",
      "run.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->size(), 6u);
  EXPECT_EQ((*f)[2].value, "HCCS");
  EXPECT_EQ((*f)[3].key, "T");
  EXPECT_EQ((*f)[3].value, "4096");
  EXPECT_EQ((*f)[5].key, "queue_depth");
}

TEST(EnvironmentTest, JsonFieldsKeepOrderAndTurnNumbersToText) {
  auto f = ParseFields(R"({"seed": 42, "routing": "topk", "E": 256, "extra": [1, 2]})", "run.json");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->size(), 4u);
  EXPECT_EQ((*f)[0].key, "seed");
  EXPECT_EQ((*f)[0].value, "42");
  EXPECT_EQ((*f)[1].value, "topk");
  EXPECT_EQ((*f)[3].value, "[1,2]");
}

TEST(EnvironmentTest, BadFieldsNameFileAndLine) {
  auto a = ParseFields("nodes: 2\njust words\n", "run.yaml");
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), StartsWith("run.yaml:2: expected 'key: value'"));
  auto b = ParseFields("T: 1\nt: 2\n", "run.yaml");
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), StartsWith("run.yaml:2: field 'T' given twice"));
  auto c = ParseFields("shape:\n  T: 1\n", "run.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("run.yaml:2: nested values are not supported"));
  auto d = ParseFields("{\"a\": ", "run.json");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), StartsWith("run.json: not a valid JSON object"));
}

TEST(EnvironmentTest, NpuSmiWithoutDevicesHasVersionOnly) {
  NpuSmiInfo info = ParseNpuSmiInfo("| npu-smi 23.0.rc3   Version: 23.0.rc3  |\nno device found\n");
  EXPECT_TRUE(info.names.empty());
  EXPECT_EQ(info.version, "23.0.rc3");
}

TEST(EnvironmentTest, JsonRoundTripKeepsItemsAndFields) {
  FakeMachine m;
  m.tree().Write("run.yaml", "nodes: 2\nqueue_depth: 4\n");
  EnvironmentOptions opt = m.Options();
  opt.fields_file = m.tree().path("run.yaml");
  EnvironmentInfo env = Probe(opt);
  std::string text = EnvironmentJsonText(env);
  EXPECT_THAT(text, StartsWith("{\n  \"schema_version\": 1,"));
  EXPECT_THAT(text, HasSubstr("\"value\": null"));
  auto back = EnvironmentFromJson(text, "environment.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->origin, "environment.json");
  EXPECT_EQ(back->probed_at, env.probed_at);
  ASSERT_EQ(back->items.size(), env.items.size());
  for (size_t i = 0; i < env.items.size(); ++i) {
    EXPECT_EQ(back->items[i].key, env.items[i].key);
    EXPECT_EQ(back->items[i].value, env.items[i].value);
    EXPECT_EQ(back->items[i].from, env.items[i].from);
  }
  EXPECT_EQ(back->Field("queue_depth"), "4");
  EXPECT_EQ(back->fields_from, env.fields_from);
}

TEST(EnvironmentTest, OtherSchemaVersionIsRejected) {
  auto a = EnvironmentFromJson(R"({"schema_version": 2, "items": []})", "env.json");
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), StartsWith("env.json: schema_version 2 is not 1"));
  auto b = EnvironmentFromJson("[]", "env.json");
  EXPECT_FALSE(b.ok());
  auto c = EnvironmentFromJson(R"({"schema_version": 1, "items": [], "unknown": {"x": 1}})", "env.json");
  EXPECT_TRUE(c.ok());  // consumers ignore unknown keys
}

TEST(EnvironmentTest, ReportSectionOneIsFilledFromTheEnvironment) {
  FakeMachine m;
  m.tree().Write("cc.json", R"([{"directory": "/b", "file": "k.cpp", "command": "bisheng -O2 -g -c k.cpp"}])");
  m.tree().Write("run.yaml",
                 "nodes: 2\ncards_per_node: 8\ntransport: HCCS\nT: 4096\nH: 7168\nK: 8\nE: 256\n"
                 "dtype: bf16\nrouting: topk\nseed: 7\nqueue_depth: 4\n");
  EnvironmentOptions opt = m.Options();
  opt.compile_commands = m.tree().path("cc.json");
  opt.fields_file = m.tree().path("run.yaml");
  EvidenceInputs in;
  in.environment = Probe(opt);
  in.environment->origin = "out/environment.json";
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  std::string md = out.str();
  std::string bin = m.tree().path("bin");
  EXPECT_THAT(md, HasSubstr("| NPU model (exact, e.g. 950PR / 950DT) | 910B3 (2 NPUs) | `" + bin +
                            "/npu-smi info` device table |"));
  EXPECT_THAT(md, HasSubstr("| CANN, driver, firmware, MindStudio Insight versions | CANN 8.0.RC3, driver 24.1.rc2, "
                            "firmware 7.5.0.1.129, MindStudio Insight _fill in_ |"));
  EXPECT_THAT(md, HasSubstr("| msprof / msopprof entry and version | msprof " + bin + "/msprof (Usage: msprof"));
  EXPECT_THAT(md, HasSubstr("msopprof _fill in_ |"));
  EXPECT_THAT(md, HasSubstr("| source commit, kernel compile options (-g, -O2) | commit _fill in_; options bisheng: "
                            "-O2 -g | " +
                            m.tree().path("cc.json") + " |"));
  EXPECT_THAT(md, HasSubstr("| nodes x cards, transport, AIV count | 2 x 8, HCCS, AIV _fill in_ | " +
                            m.tree().path("run.yaml") + " |"));
  EXPECT_THAT(md, HasSubstr("| shape T/H/K/E, dtype, routing, seed | T=4096 H=7168 K=8 E=256, bf16, topk, seed 7 |"));
  EXPECT_THAT(md,
              HasSubstr("| host OS, kernel, CPU | Ubuntu 22.04.4 LTS, kernel 5.10.0-fake, 2 x Fake CPU @ 2.60GHz |"));
  EXPECT_THAT(md, HasSubstr("| other launch fields | queue_depth=4 |"));
  EXPECT_THAT(md, HasSubstr("- environment (`optrace env`, probed "));
}

TEST(EnvironmentTest, ReportRowsStayBlankWhereTheEnvironmentSaysNothing) {
  EvidenceInputs in;
  in.environment = EnvironmentInfo{};
  in.environment->origin = "env.json";
  std::ostringstream out;
  WriteEvidenceReport(in, out);
  EXPECT_THAT(out.str(), HasSubstr("| NPU model (exact, e.g. 950PR / 950DT) | _fill in_ | `npu-smi info`; not found "
                                   "by `optrace env` (env.json) |"));
  EXPECT_THAT(out.str(), HasSubstr("| nodes x cards, transport, AIV count | _fill in_ | launch script; not found by"));
}

}  // namespace
}  // namespace optrace::evidence
