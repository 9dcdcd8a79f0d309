// The one slot writer shared by every backend: fills the slot header at kernel entry and
// appends bounded events (format.h). A backend supplies where the slot is and what time it is:
//
//   struct Backend {
//     static constexpr uint64_t kClockHz;   // ticks per second of Now()
//     static uint64_t Now();                // current timestamp in ticks
//     static int64_t* Slot();               // this core's working slot, nullptr if not set up
//     static void Barrier();                // ordering before a synchronous record
//   };
//
// Bounds: a record never writes outside its slot; when the slot is full it only increments
// the dropped word. The slot state lives in the slot's own header words, so a backend keeps
// a single pointer per core.
//
// OPTRACE_ON_RECORD(point_id, payload, timestamp, stored) is an optional hook, called after
// each record (stored = false when it was dropped); toolchains that want a ground-truth log
// (the AscendC emulator) define it before including optrace/trace.h. Default: nothing.
//
// Device-safe: fixed-width integers only. OPTRACE_FN comes from the backend header.
#ifndef OPTRACE_WRITER_H_
#define OPTRACE_WRITER_H_

#include "optrace/config.h"
#include "optrace/format.h"

#ifndef OPTRACE_FN
#error "optrace/writer.h: include a backend first (optrace/trace.h does this for you)"
#endif

// The address space of a slot's words: empty (a plain pointer: the stack buffer of AscendC,
// CUDA global memory, host memory) unless the backend writes its slots in place elsewhere
// (the AscendC GM-buffer mode sets __gm__).
#ifndef OPTRACE_SLOT_SPACE
#define OPTRACE_SLOT_SPACE
#endif

#ifndef OPTRACE_ON_RECORD
#define OPTRACE_ON_RECORD(point_id, payload, timestamp, stored) ((void)0)
#endif

namespace optrace {
namespace detail {

// Writes the 8 header words of an empty slot of `slot_words` words.
OPTRACE_FN void InitSlot(OPTRACE_SLOT_SPACE int64_t* slot, uint32_t slot_words, uint64_t core_word, uint64_t clock_hz,
                         uint64_t start_timestamp) {
  slot[format::kWordMagicVersion] = static_cast<int64_t>(format::PackMagicVersion());
  slot[format::kWordCore] = static_cast<int64_t>(core_word);
  slot[format::kWordClockHz] = static_cast<int64_t>(clock_hz);
  slot[format::kWordStartTimestamp] = static_cast<int64_t>(start_timestamp);
  slot[format::kWordCapacity] = static_cast<int64_t>(
      format::PackCapacity(format::CapacityForSlotWords(slot_words), slot_words));
  slot[format::kWordEventCount] = 0;
  slot[format::kWordDropped] = 0;
  slot[format::kWordFingerprint] = static_cast<int64_t>(kPointSetFingerprint);
}

// Appends one event to `slot`, or counts it as dropped when the slot is full.
// Returns whether the event was stored.
OPTRACE_FN bool AppendEvent(OPTRACE_SLOT_SPACE int64_t* slot, uint32_t point_id, uint32_t payload, uint64_t timestamp) {
  const uint64_t count = static_cast<uint64_t>(slot[format::kWordEventCount]);
  const uint32_t capacity = format::CapacityOf(static_cast<uint64_t>(slot[format::kWordCapacity]));
  if (count >= capacity) {
    slot[format::kWordDropped] += 1;
    return false;
  }
  OPTRACE_SLOT_SPACE int64_t* event = slot + format::kHeaderWords + count * format::kWordsPerEvent;
  event[0] = static_cast<int64_t>(format::PackEvent(point_id, payload));
  event[1] = static_cast<int64_t>(timestamp);
  slot[format::kWordEventCount] = static_cast<int64_t>(count + 1);
  return true;
}

// Records one event on the calling core through `Backend`; nothing when no slot is set up.
template <typename Backend, bool kSync>
OPTRACE_FN void Record(uint32_t point_id, uint32_t payload) {
  if (kSync) {
    Backend::Barrier();
  }
  OPTRACE_SLOT_SPACE int64_t* slot = Backend::Slot();
  if (slot == nullptr) {
    return;
  }
  const uint64_t timestamp = Backend::Now();
  const bool stored = AppendEvent(slot, point_id, payload, timestamp);
  OPTRACE_ON_RECORD(point_id, payload, timestamp, stored);
  (void)stored;
}

// Words of `slot` that carry data (header + stored events): what a write-back must copy.
OPTRACE_FN uint32_t UsedWords(const OPTRACE_SLOT_SPACE int64_t* slot) {
  return format::kHeaderWords +
         static_cast<uint32_t>(slot[format::kWordEventCount]) * format::kWordsPerEvent;
}

}  // namespace detail
}  // namespace optrace

#endif  // OPTRACE_WRITER_H_
