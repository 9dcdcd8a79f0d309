#include "collect/inspect.h"
#include "core/json_text.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <map>
#include <tuple>

#include "collect/dump_files.h"
#include "collect/legacy_reader.h"
#include "collect/native_reader.h"
#include "collect/torch_reader.h"
#include "core/file_io.h"
#include "core/mapped_file.h"

namespace optrace::collect {
namespace {

bool LegacyAllZero(const TorchFile& f) {
  for (const Int64Tensor& t : f.tensors) {
    for (int64_t r = 0; r < t.rows(); ++r) {
      if (t.cols() > 0 && t.At(r, 0) != 0) return false;
    }
  }
  return true;
}

FileReport InspectOne(const RankFile& f, double clock_hz) {
  FileReport rep;
  rep.path = f.path.string();
  rep.rank = f.rank;
  rep.format = f.format;
  auto corrupt = [&](const Status& st) {
    rep.verdict = Verdict::kCorrupt;
    rep.message = st.message();
    return rep;
  };
  Result<MappedFile> file = MappedFile::Open(
      f.path, f.format == DumpFormat::kNative ? MappedFile::Access::kSparse : MappedFile::Access::kSequential);
  if (!file.ok()) return corrupt(file.status());
  const std::string_view bytes_view = file->bytes();
  const std::string_view* bytes = &bytes_view;
  auto decode = [&]() -> Result<Dump> {
    if (f.format == DumpFormat::kNative) return DecodeNativeDump(*bytes, rep.path, f.rank);
    OPTRACE_ASSIGN_OR_RETURN(TorchFile tf, ReadTorchFile(*bytes, rep.path));
    if (LegacyAllZero(tf)) {
      rep.verdict = Verdict::kEmpty;
      rep.message = fmt::format("{}: every row's record count is zero: saved before the device synchronised?", rep.path);
    }
    return DecodeLegacyTensors(tf, rep.path, f.rank, clock_hz);
  };
  if (f.format == DumpFormat::kNative && !bytes->empty() && IsAllZero(*bytes)) {
    if (Status whole = file->CheckWhole(); !whole.ok()) return corrupt(whole);
    rep.verdict = Verdict::kEmpty;
    rep.message = AllZeroMessage(rep.path, bytes->size());
    return rep;
  }
  Result<Dump> dump = decode();
  if (Status whole = file->CheckWhole(); !whole.ok()) return corrupt(whole);  // not what the file is now
  if (rep.verdict == Verdict::kEmpty) return rep;
  if (!dump.ok()) return corrupt(dump.status());
  rep.slot_words = dump->slot_words;
  rep.never_written = dump->never_written;
  if (!dump->corrupt_slots.empty()) {
    rep.verdict = Verdict::kCorrupt;
    rep.message = dump->corrupt_slots.front();
  }
  std::map<std::tuple<CoreKind, uint32_t, uint32_t>, uint32_t> owner;
  for (const CoreSeries& c : dump->cores) {
    auto [it, fresh] = owner.emplace(std::make_tuple(c.kind, c.core_index, c.sub_block), c.slot);
    if (!fresh && rep.verdict != Verdict::kCorrupt) {
      rep.verdict = Verdict::kCorrupt;
      rep.message = fmt::format("{}: slots {} and {} both claim {} {}: one core wrote another's slot", rep.path,
                                it->second, c.slot, CoreKindName(c.kind), c.core_index);
    }
  }
  for (const CoreSeries& c : dump->cores) {
    SlotRow row{c.slot, c.kind, c.core_index, c.sub_block, c.events.size(), c.dropped, c.capacity, c.clock_hz, 0, 0};
    if (!c.events.empty()) {
      row.first_ticks = c.events.front().ticks;
      row.last_ticks = c.events.back().ticks;
    }
    if (c.dropped > 0 || (f.format == DumpFormat::kLegacy && c.capacity > 0 && c.events.size() == c.capacity)) {
      if (rep.verdict != Verdict::kCorrupt) rep.verdict = Verdict::kOverflowed;
    }
    // Timestamps of one slot never decrease (docs/format.md): a decrease is a corrupt slot or
    // a clock problem, and collect would have to drop those pairs.
    for (size_t i = 1; i < c.events.size(); ++i) {
      if (c.events[i].ticks < c.events[i - 1].ticks) {
        if (rep.verdict != Verdict::kCorrupt) {
          rep.verdict = Verdict::kCorrupt;
          rep.message = fmt::format("{}: slot {} ({} {}): record {} at tick {} is earlier than record {} at tick {}; "
                                    "the slot is corrupt or the core's clock jumped",
                                    rep.path, c.slot, CoreKindName(c.kind), c.core_index, i, c.events[i].ticks, i - 1,
                                    c.events[i - 1].ticks);
        }
        break;
      }
    }
    rep.slots.push_back(row);
  }
  return rep;
}

}  // namespace

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kValid: return "valid";
    case Verdict::kEmpty: return "empty";
    case Verdict::kOverflowed: return "overflowed";
    case Verdict::kCorrupt: return "corrupt";
  }
  return "?";
}

Result<std::vector<FileReport>> InspectDumps(const std::vector<std::string>& inputs, double legacy_clock_mhz) {
  OPTRACE_ASSIGN_OR_RETURN(std::vector<RankFile> files, FindRankFiles(inputs));
  std::vector<FileReport> out;
  for (const RankFile& f : files) out.push_back(InspectOne(f, legacy_clock_mhz * 1e6));
  return out;
}

std::string FormatInspectText(const std::vector<FileReport>& files) {
  std::string out;
  for (const FileReport& f : files) {
    out += fmt::format("{}: rank {}, {}, {}", f.path, f.rank, f.format == DumpFormat::kNative ? "native" : "legacy",
                       VerdictName(f.verdict));
    if (f.verdict == Verdict::kEmpty || (f.verdict == Verdict::kCorrupt && f.slots.empty())) {
      out += "\n  " + f.message + "\n";
      continue;
    }
    out += fmt::format(" ({} slots of {} words, {} never written)\n", f.slots.size() + f.never_written, f.slot_words,
                       f.never_written);
    if (f.verdict == Verdict::kCorrupt) out += "  " + f.message + "\n";  // decoded, but a slot is wrong
    out += fmt::format("  {:>5} {:<5} {:>5} {:>4} {:>7} {:>7} {:>6} {:>16} {:>16}\n", "slot", "kind", "core", "sub",
                       "events", "dropped", "fill%", "first tick", "last tick");
    for (const SlotRow& s : f.slots) {
      const double fill = s.capacity ? 100.0 * static_cast<double>(s.events) / s.capacity : 0;
      out += fmt::format("  {:>5} {:<5} {:>5} {:>4} {:>7} {:>7} {:>6.1f} {:>16} {:>16}\n", s.slot,
                         CoreKindName(s.kind), s.core_index, s.sub_block, s.events, s.dropped, fill, s.first_ticks,
                         s.last_ticks);
    }
  }
  size_t counts[4] = {0, 0, 0, 0};
  for (const FileReport& f : files) ++counts[static_cast<int>(f.verdict)];
  out += fmt::format("{} file(s): {} valid, {} empty, {} overflowed, {} corrupt\n", files.size(), counts[0], counts[1],
                     counts[2], counts[3]);
  return out;
}

std::string InspectToJson(const std::vector<FileReport>& files) {
  using nlohmann::json;
  json arr = json::array();
  for (const FileReport& f : files) {
    json slots = json::array();
    for (const SlotRow& s : f.slots) {
      slots.push_back({{"slot", s.slot},
                       {"core_kind", CoreKindKey(s.kind)},
                       {"core_index", s.core_index},
                       {"sub_block", s.sub_block},
                       {"events", s.events},
                       {"dropped", s.dropped},
                       {"capacity", s.capacity},
                       {"fill", s.capacity ? static_cast<double>(s.events) / s.capacity : 0.0},
                       {"clock_hz", s.clock_hz},
                       {"first_tick", s.first_ticks},
                       {"last_tick", s.last_ticks}});
    }
    arr.push_back({{"path", f.path},
                   {"rank", f.rank},
                   {"format", f.format == DumpFormat::kNative ? "native" : "legacy"},
                   {"verdict", VerdictName(f.verdict)},
                   {"message", f.message},
                   {"slot_words", f.slot_words},
                   {"never_written", f.never_written},
                   {"slots", std::move(slots)}});
  }
  json doc = {{"schema_version", 1}, {"files", std::move(arr)}};
  return JsonText(doc) + "\n";
}

}  // namespace optrace::collect
