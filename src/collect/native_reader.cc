#include "collect/native_reader.h"

#include <cstring>

namespace optrace::collect {
namespace {

using namespace format;  // NOLINT: the wire-format helpers read best unqualified here

inline uint64_t WordAt(std::string_view bytes, size_t word) {
  uint64_t w;
  std::memcpy(&w, bytes.data() + word * 8, 8);
  return w;  // dumps are little-endian, as are all hosts optrace supports
}

bool KnownKind(CoreKind k) {
  return k == CoreKind::kAic || k == CoreKind::kAiv || k == CoreKind::kCudaBlock || k == CoreKind::kHostThread;
}

}  // namespace

bool IsAllZero(std::string_view bytes) {
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    if (w != 0) return false;
  }
  for (; i < bytes.size(); ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

std::string AllZeroMessage(std::string_view path, size_t bytes) {
  return fmt::format(
      "{}: all {} bytes are zero: no core wrote its slot. The buffer was most likely saved before the device "
      "finished; synchronise first (torch_npu.npu.synchronize() / torch.cuda.synchronize()) and save again",
      path, bytes);
}

Result<Dump> DecodeNativeDump(std::string_view bytes, std::string_view path, int rank, DumpDetail detail) {
  if (bytes.empty()) return BadInputError("{}: the file is empty; save the profiling buffer again", path);
  if (bytes.size() % 8 != 0) {
    return BadInputError("{}: {} bytes is not a whole number of int64 words: the dump is truncated; save it again",
                         path, bytes.size());
  }
  const size_t n_words = bytes.size() / 8;
  // Find the first header: slot size comes from it. Headers sit at multiples of the slot size,
  // so the first one also tells whether the slots before it were simply never written.
  size_t first = n_words;
  for (size_t i = 0; i < n_words; ++i) {
    if (MagicOf(WordAt(bytes, i)) == kMagic) {
      first = i;
      break;
    }
  }
  if (first == n_words) {
    if (IsAllZero(bytes)) return BadInputError("{}", AllZeroMessage(path, bytes.size()));
    return BadInputError("{}: no optrace slot header found (word 0 is 0x{:016x}, expected magic 0x{:08x} \"OPTR\"): "
                         "this is not an optrace v1 dump; legacy torch dumps must be named rank<N>.pt",
                         path, WordAt(bytes, 0), kMagic);
  }
  const uint64_t w0 = WordAt(bytes, first);
  // Version 1 readers take a longer header (a later writer may add words) and skip the words
  // they do not know: events start at the header's own word count.
  if (VersionOf(w0) != kVersion || HeaderWordsOf(w0) < kHeaderWords) {
    return BadInputError("{}: byte {}: buffer format version {} with {} header words; this optrace reads version {} "
                         "(at least {} words): update optrace or rebuild the kernel with this include/optrace",
                         path, first * 8, VersionOf(w0), HeaderWordsOf(w0), kVersion, kHeaderWords);
  }
  const uint32_t header_words = HeaderWordsOf(w0);
  const uint32_t slot_words = SlotWordsOf(WordAt(bytes, first + kWordCapacity));
  if (slot_words <= header_words || first % slot_words != 0) {
    return BadInputError("{}: slot header @ byte {}: slot size {} words is impossible there; the slot header is "
                         "corrupt",
                         path, first * 8, slot_words);
  }
  if (n_words % slot_words != 0) {
    return BadInputError("{}: {} bytes is not a whole number of slots of {} words (PROF_SIZE_PER_CORE): the dump is "
                         "truncated; save the whole profiling tensor again",
                         path, bytes.size(), slot_words);
  }
  Dump dump;
  dump.path = std::string(path);
  dump.rank = rank;
  dump.format = DumpFormat::kNative;
  dump.slot_words = slot_words;
  const size_t n_slots = n_words / slot_words;
  for (size_t s = 0; s < n_slots; ++s) {
    const size_t base = s * slot_words;
    const size_t byte = base * 8;
    const uint64_t magic_word = WordAt(bytes, base);
    if (MagicOf(magic_word) != kMagic) {
      // A header that is whole except for its magic (version, slot size, capacity, count and
      // core kind all consistent) was written by a core and then damaged: its events are lost,
      // which is data loss, not an unused slot.
      const uint64_t cap_word = WordAt(bytes, base + kWordCapacity);
      const uint64_t count = WordAt(bytes, base + kWordEventCount);
      if (magic_word != 0 && VersionOf(magic_word) == kVersion && HeaderWordsOf(magic_word) == header_words &&
          SlotWordsOf(cap_word) == slot_words && CapacityOf(cap_word) == (slot_words - header_words) / 2 &&
          count <= CapacityOf(cap_word) && KnownKind(CoreKindOf(WordAt(bytes, base + kWordCore)))) {
        dump.corrupt_slots.push_back(fmt::format(
            "{}: slot {} @ byte {}: unknown magic 0x{:08x} beside an intact header ({} events): the slot was "
            "overwritten; its events are not used",
            path, s, byte, MagicOf(magic_word), count));
        continue;
      }
      // SPEC 4: a slot without the magic was never written. Device memory is not zeroed, so
      // unused slots may hold anything; they are counted, not decoded.
      ++dump.never_written;
      dump.never_written_slots.push_back(static_cast<uint32_t>(s));
      if (magic_word != 0) ++dump.never_written_nonzero;
      continue;
    }
    if (VersionOf(magic_word) != kVersion || HeaderWordsOf(magic_word) != header_words) {
      return BadInputError("{}: slot {} @ byte {}: buffer format version {} with {} header words, but slot {} has "
                           "version {} with {}: the dump mixes buffers or is corrupt",
                           path, s, byte, VersionOf(magic_word), HeaderWordsOf(magic_word), first / slot_words,
                           kVersion, header_words);
    }
    const uint64_t core = WordAt(bytes, base + kWordCore);
    const uint64_t cap_word = WordAt(bytes, base + kWordCapacity);
    if (SlotWordsOf(cap_word) != slot_words) {
      return BadInputError("{}: slot {} @ byte {}: slot size {} words, but slot {} says {}: slots disagree; the dump "
                           "mixes buffers or is corrupt",
                           path, s, byte, SlotWordsOf(cap_word), first / slot_words, slot_words);
    }
    const uint32_t capacity = CapacityOf(cap_word);
    const uint32_t want_capacity = (slot_words - header_words) / 2;
    if (capacity != want_capacity) {
      return BadInputError("{}: slot {} @ byte {}: capacity {} does not fit a slot of {} words (expected {}); the slot "
                           "header is corrupt: check that the kernel writes only its own slot",
                           path, s, byte, capacity, slot_words, want_capacity);
    }
    const uint64_t count = WordAt(bytes, base + kWordEventCount);
    if (count > capacity) {
      return BadInputError("{}: slot {} @ byte {}: count {} > capacity {}; the slot header is corrupt or the dump is "
                           "truncated: save the whole profiling tensor again, after a device synchronize",
                           path, s, byte + kWordEventCount * 8, count, capacity);
    }
    CoreSeries c;
    c.kind = CoreKindOf(core);
    if (!KnownKind(c.kind)) {
      return BadInputError("{}: slot {} @ byte {}: unknown core kind {}; the slot header is corrupt", path, s,
                           byte + 8, static_cast<int>(c.kind));
    }
    c.core_index = CoreIndexOf(core);
    c.sub_block = SubBlockOf(core);
    c.slot = static_cast<uint32_t>(s);
    c.clock_hz = static_cast<double>(WordAt(bytes, base + kWordClockHz));
    c.start_ticks = static_cast<int64_t>(WordAt(bytes, base + kWordStartTimestamp));
    c.capacity = capacity;
    c.dropped = WordAt(bytes, base + kWordDropped);
    // A device counts at most one drop per trace call: more than 2^40 is a damaged header word.
    if (c.dropped > (uint64_t{1} << 40)) {
      dump.corrupt_slots.push_back(fmt::format("{}: slot {} @ byte {}: dropped count {} is impossible; the slot "
                                               "header is corrupt; its events are not used",
                                               path, s, byte + kWordDropped * 8, c.dropped));
      continue;
    }
    c.fingerprint = WordAt(bytes, base + kWordFingerprint);
    if (detail == DumpDetail::kLayout) {
      dump.cores.push_back(std::move(c));
      continue;
    }
    c.events.resize(count);
    const size_t ev = base + header_words;
    for (size_t i = 0; i < count; ++i) {
      uint64_t id_word = WordAt(bytes, ev + 2 * i);
      c.events[i] = Event{PointIdOf(id_word), PayloadOf(id_word), static_cast<int64_t>(WordAt(bytes, ev + 2 * i + 1))};
    }
    dump.cores.push_back(std::move(c));
  }
  return dump;
}

}  // namespace optrace::collect
