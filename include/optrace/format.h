// optrace buffer format v1: the wire format shared by every device writer and the decoder.
//
// A profiling output is an int64 array of N slots of PROF_SIZE_PER_CORE words. Each slot is
// written by one core (AIC, AIV, CUDA block, host thread) and is self-describing: the host
// needs no knowledge of core counts, slot size or clock rate. Word layout (docs/format.md):
//
//   word 0  magic "OPTR" (low 32) | version (bits 32..47) | header words (bits 48..63)
//   word 1  core kind (bits 0..7) | sub-block index (8..15) | reserved (16..31) | core index (32..63)
//   word 2  clock frequency in Hz
//   word 3  start timestamp (ticks of that clock, taken at kernel entry)
//   word 4  event capacity (low 32) | slot size in words (high 32)
//   word 5  events written (<= capacity)
//   word 6  events dropped because the slot was full
//   word 7  point-set fingerprint (0 if unknown)
//   word 8+ events, two words each: (point id | payload << 32), timestamp in ticks
//
// A slot whose word 0 does not carry the magic was never written (e.g. the kernel did not
// run on that core, or the host read the buffer before synchronising).
//
// Device-safe: fixed-width integers only; no STL, no exceptions, no I/O.
#ifndef OPTRACE_FORMAT_H_
#define OPTRACE_FORMAT_H_

#include "optrace/device_types.h"

namespace optrace {
namespace format {

constexpr uint32_t kMagic = 0x5254504Fu;  // "OPTR" in little-endian byte order
constexpr uint32_t kVersion = 1;
constexpr uint32_t kHeaderWords = 8;
constexpr uint32_t kWordsPerEvent = 2;

enum class CoreKind : uint8_t {
  kUnknown = 0,
  kAic = 1,         // AscendC cube core
  kAiv = 2,         // AscendC vector core
  kCudaBlock = 3,   // one CUDA thread block
  kHostThread = 4,  // one host thread
};

// Word indices of the slot header.
enum HeaderWord : uint32_t {
  kWordMagicVersion = 0,
  kWordCore = 1,
  kWordClockHz = 2,
  kWordStartTimestamp = 3,
  kWordCapacity = 4,
  kWordEventCount = 5,
  kWordDropped = 6,
  kWordFingerprint = 7,
};

// Events a slot of `slot_words` words can hold.
OPTRACE_CONSTEXPR uint32_t CapacityForSlotWords(uint32_t slot_words) {
  return slot_words <= kHeaderWords ? 0u : (slot_words - kHeaderWords) / kWordsPerEvent;
}
// Slot size in words needed to hold `events` events.
OPTRACE_CONSTEXPR uint64_t SlotWordsForEvents(uint64_t events) {
  return kHeaderWords + events * kWordsPerEvent;
}

OPTRACE_CONSTEXPR uint64_t PackMagicVersion() {
  return uint64_t{kMagic} | (uint64_t{kVersion} << 32) | (uint64_t{kHeaderWords} << 48);
}
OPTRACE_CONSTEXPR uint64_t PackCore(CoreKind kind, uint32_t core_index, uint32_t sub_block) {
  return uint64_t{static_cast<uint8_t>(kind)} | (uint64_t{sub_block & 0xffu} << 8) |
         (uint64_t{core_index} << 32);
}
OPTRACE_CONSTEXPR uint64_t PackCapacity(uint32_t capacity, uint32_t slot_words) {
  return uint64_t{capacity} | (uint64_t{slot_words} << 32);
}
// First word of an event: point id in the low half, payload (index / extra) in the high half.
OPTRACE_CONSTEXPR uint64_t PackEvent(uint32_t point_id, uint32_t payload) {
  return uint64_t{point_id} | (uint64_t{payload} << 32);
}
// Payload of MoeTracing(id, extraId, index): extraId in the low 8 bits, index above (seed 000).
OPTRACE_CONSTEXPR uint32_t PackExtraPayload(uint32_t extra_id, uint32_t index) {
  return (extra_id & 0xffu) | (index << 8);
}

OPTRACE_CONSTEXPR uint32_t MagicOf(uint64_t w0) { return static_cast<uint32_t>(w0); }
OPTRACE_CONSTEXPR uint32_t VersionOf(uint64_t w0) { return static_cast<uint32_t>((w0 >> 32) & 0xffffu); }
OPTRACE_CONSTEXPR uint32_t HeaderWordsOf(uint64_t w0) { return static_cast<uint32_t>(w0 >> 48); }
OPTRACE_CONSTEXPR CoreKind CoreKindOf(uint64_t w1) { return static_cast<CoreKind>(w1 & 0xffu); }
OPTRACE_CONSTEXPR uint32_t SubBlockOf(uint64_t w1) { return static_cast<uint32_t>((w1 >> 8) & 0xffu); }
OPTRACE_CONSTEXPR uint32_t CoreIndexOf(uint64_t w1) { return static_cast<uint32_t>(w1 >> 32); }
OPTRACE_CONSTEXPR uint32_t CapacityOf(uint64_t w4) { return static_cast<uint32_t>(w4); }
OPTRACE_CONSTEXPR uint32_t SlotWordsOf(uint64_t w4) { return static_cast<uint32_t>(w4 >> 32); }
OPTRACE_CONSTEXPR uint32_t PointIdOf(uint64_t event_word) { return static_cast<uint32_t>(event_word); }
OPTRACE_CONSTEXPR uint32_t PayloadOf(uint64_t event_word) { return static_cast<uint32_t>(event_word >> 32); }

static_assert(CapacityForSlotWords(2048) == 1020, "default slot holds 1020 events");
static_assert(SlotWordsForEvents(1020) == 2048, "capacity and slot size are inverse");
static_assert(PayloadOf(PackEvent(7, 0x12345678u)) == 0x12345678u, "payload in the high half");
static_assert(PointIdOf(PackEvent(7, 0x12345678u)) == 7u, "point id in the low half");
static_assert(PackExtraPayload(3, 5) == (3u | (5u << 8)), "extraId | index << 8");

}  // namespace format
}  // namespace optrace

#endif  // OPTRACE_FORMAT_H_
