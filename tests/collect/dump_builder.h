// Test helpers: native dumps built word by word from include/optrace/format.h, temp dirs.
//
//   SlotSpec s{CoreKind::kAiv, 3};
//   s.events = {{Bid("send"), 0, 100}, {Eid("send"), 0, 150}};
//   WriteBytes(dir / "rank0.bin", ToBytes(BuildNativeBuffer({s, std::nullopt}, 64)));
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "collect/zip_reader.h"
#include "optrace/format.h"
#include "optrace/point_id.h"

namespace optrace::collect::testing {

using format::CoreKind;

inline uint32_t Bid(std::string_view label) {
  return PointId(LabelId(label.data(), static_cast<uint32_t>(label.size())), false);
}
inline uint32_t Eid(std::string_view label) {
  return PointId(LabelId(label.data(), static_cast<uint32_t>(label.size())), true);
}

struct EventSpec {
  uint32_t id;
  uint32_t payload;
  int64_t ticks;
};

struct SlotSpec {
  SlotSpec(CoreKind k = CoreKind::kAiv, uint32_t c = 0, uint32_t sub = 0, uint64_t hz = 50'000'000, int64_t s = 0)
      : kind(k), core(c), sub_block(sub), clock_hz(hz), start(s) {}
  CoreKind kind;
  uint32_t core;
  uint32_t sub_block;
  uint64_t clock_hz;
  int64_t start;
  std::vector<EventSpec> events;
  uint64_t dropped = 0;
};

// Slots in order; nullopt = a never-written (all-zero) slot.
inline std::vector<uint64_t> BuildNativeBuffer(const std::vector<std::optional<SlotSpec>>& slots,
                                               uint32_t slot_words) {
  using namespace format;
  std::vector<uint64_t> w(slots.size() * slot_words, 0);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) continue;
    const SlotSpec& s = *slots[i];
    uint64_t* p = w.data() + i * slot_words;
    p[kWordMagicVersion] = PackMagicVersion();
    p[kWordCore] = PackCore(s.kind, s.core, s.sub_block);
    p[kWordClockHz] = s.clock_hz;
    p[kWordStartTimestamp] = static_cast<uint64_t>(s.start);
    p[kWordCapacity] = PackCapacity(CapacityForSlotWords(slot_words), slot_words);
    p[kWordEventCount] = s.events.size();
    p[kWordDropped] = s.dropped;
    for (size_t e = 0; e < s.events.size(); ++e) {
      p[kHeaderWords + 2 * e] = PackEvent(s.events[e].id, s.events[e].payload);
      p[kHeaderWords + 2 * e + 1] = static_cast<uint64_t>(s.events[e].ticks);
    }
  }
  return w;
}

inline std::string ToBytes(const std::vector<uint64_t>& words) {
  std::string b(words.size() * 8, '\0');
  std::memcpy(b.data(), words.data(), b.size());
  return b;
}

inline void WriteBytes(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A torch.save zip with one bit flipped at byte `offset` of its stored tensor data/0, so that the
// entry fails its zip CRC-32; "" when `pt` has no such entry.
inline std::string FlipStoredTensorBit(const std::string& pt, size_t offset) {
  Result<ZipArchive> zip = ZipArchive::Open(pt, "rank000.pt");
  if (!zip.ok()) return {};
  for (const ZipEntry& e : zip->entries()) {
    if (!e.name.ends_with("data/0")) continue;
    auto byte = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(pt[i])); };
    const size_t at = e.local_header_offset;
    const size_t payload = at + 30 + byte(at + 26) + 256 * byte(at + 27) + byte(at + 28) + 256 * byte(at + 29);
    std::string bad = pt;
    bad[payload + offset] = static_cast<char>(bad[payload + offset] ^ 0x01);
    return bad;
  }
  return {};
}

// bench/legacy/: the legacy dump generator and the Python reference collector.
inline std::string LegacyBenchDir() { return std::string(OPTRACE_SOURCE_DIR) + "/bench/legacy/"; }

// An empty directory for a test suite's generated files, one per process (ctest runs each test of
// a suite in its own process, in parallel).
inline std::filesystem::path SuiteDir(std::string_view name) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "optrace_collect" /
                              (std::string(name) + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// A fresh empty directory per test, named after it.
inline std::filesystem::path FreshDir(std::string_view tag = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "optrace_collect" /
                              (std::string(info->test_suite_name()) + "." + info->name() + std::string(tag));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A small valid rank dump: AIC 0 with nested phases, AIV 0 and AIV 1 with a loop.
inline std::string SmallNativeDump(int64_t offset = 0) {
  SlotSpec aic{CoreKind::kAic, 0};
  aic.events = {{Bid("processing"), 0, 1000 + offset}, {Bid("gemm"), 0, 1100 + offset},
                {Eid("gemm"), 0, 1600 + offset},       {Eid("processing"), 0, 2000 + offset}};
  SlotSpec aiv0{CoreKind::kAiv, 0};
  aiv0.events = {{Bid("processing"), 0, 1050 + offset}, {Bid("send"), 1, 1100 + offset},
                 {Eid("send"), 1, 1200 + offset},       {Bid("send"), 2, 1300 + offset},
                 {Eid("send"), 2, 1500 + offset},       {Eid("processing"), 0, 1900 + offset}};
  SlotSpec aiv1{CoreKind::kAiv, 1};
  aiv1.events = {{Bid("processing"), 0, 1000 + offset}, {Eid("processing"), 0, 1800 + offset}};
  return ToBytes(BuildNativeBuffer({aic, std::nullopt, aiv0, aiv1}, 32));
}

}  // namespace optrace::collect::testing
