// Issue 53.4: dumps are memory-mapped; one truncated while it is read (cp or scp over it, the next
// run's torch.save) killed collect with SIGBUS and every other rank with it. Now such a rank is an
// error of its own (or, where the rewrite came first, read as it is then).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "collect/collector.h"
#include "collect/dump_builder.h"

namespace optrace::collect {
namespace {

using namespace testing;

TEST(ShrinkingDump, ADumpRewrittenWhileReadNeverEndsTheProcess) {
  const std::filesystem::path dir = FreshDir("shrinking");
  const std::filesystem::path path = dir / "rank0.bin";
  // Many slots of a sparse dump: the decoder touches a page of each.
  std::vector<std::optional<SlotSpec>> slots;
  for (uint32_t i = 0; i < 2048; ++i) {
    SlotSpec s{CoreKind::kAiv, i};
    s.events = {{Bid("send"), 0, 100}, {Eid("send"), 0, 150}};
    slots.push_back(s);
  }
  const std::string full = ToBytes(BuildNativeBuffer(slots, 512));  // 8 MiB
  WriteBytes(path, full);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop.load()) {  // shrink to one page, then write it whole again, in place
      const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
      if (fd < 0) continue;
      (void)::write(fd, full.data(), 4096);
      ::usleep(200);
      (void)::write(fd, full.data() + 4096, full.size() - 4096);
      ::close(fd);
    }
  });
  int ok = 0, errors = 0;
  for (int i = 0; i < 60; ++i) {
    Result<Dump> d = ReadDump(RankFile{path, 0, DumpFormat::kNative}, 0.0);
    if (d.ok()) {
      ++ok;
    } else {
      ++errors;
      EXPECT_NE(d.status().message().find(path.string()), std::string::npos) << d.status().message();
    }
  }
  stop.store(true);
  writer.join();
  RecordProperty("rank_errors", errors);
  EXPECT_EQ(ok + errors, 60);  // reaching here at all is the point: no SIGBUS
}

}  // namespace
}  // namespace optrace::collect
