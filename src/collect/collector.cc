#include "collect/collector.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "collect/label_nesting.h"
#include "collect/legacy_reader.h"
#include "collect/native_reader.h"
#include "core/file_io.h"
#include "core/huge_pages.h"
#include "core/mapped_file.h"
#include "optrace/point_id.h"

namespace optrace::collect {
namespace {

constexpr int64_t kNoMapping = -1;
constexpr double kMinClockHz = 1e3, kMaxClockHz = 1e11;
constexpr int64_t kMaxTicks = int64_t{1} << 61;

// Point id -> (label index, is_end), cached so each distinct id is looked up once.
class Resolver {
 public:
  Resolver(const PointMap* map, Collection& c) : map_(map), c_(c) {}

  // Returns label index << 1 | is_end, or kNoMapping.
  int64_t Resolve(uint32_t point_id) {
    auto it = cache_.find(point_id);
    if (it != cache_.end()) return it->second;
    int64_t r = Lookup(point_id);
    cache_.emplace(point_id, r);
    return r;
  }
  const std::unordered_map<uint32_t, int64_t>& seen() const { return cache_; }

 private:
  int64_t Lookup(uint32_t point_id) {
    if (map_) {
      const PointInfo* p = map_->Find(point_id);
      if (!p) return kNoMapping;
      const bool is_end = p->event_type == 'E';
      uint32_t idx = LabelIndex(p->label, map_->scheme == PointIdScheme::kFnv1a31 ? LabelIdOfPoint(point_id) : point_id);
      LabelInfo& l = c_.labels[idx];
      (is_end ? l.end_file : l.begin_file) = p->file;
      (is_end ? l.end_line : l.begin_line) = p->line;
      return int64_t{idx} << 1 | (is_end ? 1 : 0);
    }
    const uint32_t label_id = LabelIdOfPoint(point_id);
    uint32_t idx = LabelIndex(fmt::format("0x{:08x}", label_id), label_id);
    return int64_t{idx} << 1 | (IsEndPoint(point_id) ? 1 : 0);
  }

  uint32_t LabelIndex(const std::string& name, uint32_t key) {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    uint32_t idx = static_cast<uint32_t>(c_.labels.size());
    LabelInfo l;
    l.name = name;
    l.label_key = key;
    c_.labels.push_back(std::move(l));
    by_name_.emplace(name, idx);
    return idx;
  }

  const PointMap* map_;
  Collection& c_;
  std::unordered_map<uint32_t, int64_t> cache_;
  std::unordered_map<std::string, uint32_t> by_name_;
};

std::string Where(const std::string& file, int line) {
  if (file.empty()) return "unknown location";
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

// An upper bound on the intervals the files can hold: a record takes at least 16 bytes of a
// stored dump (two int64 words) and an interval two records. Reserved once, the table never
// moves (a move copied it and faulted in its new pages: three quarters of collect's page faults);
// untouched capacity costs address space, not memory. It is capped at an eighth of the physical
// memory so the kernel's overcommit check never refuses it; deflated entries can beat the bound.
// Past either, the vector grows as usual.
size_t IntervalBound(const std::vector<RankFile>& files) {
  uint64_t bytes = 0;
  for (const RankFile& f : files) {
    std::error_code ec;
    const uint64_t n = std::filesystem::file_size(f.path, ec);
    if (!ec) bytes += n;
  }
  uint64_t cap = uint64_t{1} << 24;  // intervals, where the physical memory is not known
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) cap = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 8 / sizeof(Interval);
#endif
  return static_cast<size_t>(std::min(bytes / 32, cap));
}

uint64_t NextPow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// What a dump's trace threads are made of: its cores' kinds and indices, in slot order.
using CoreKeys = std::vector<std::pair<CoreKind, uint32_t>>;

CoreKeys KeysOf(const Dump& dump) {
  CoreKeys keys;
  keys.reserve(dump.cores.size());
  for (const CoreSeries& core : dump.cores) keys.emplace_back(core.kind, core.core_index);
  return keys;
}

// The layout pass (CollectOptions::sink): each readable dump's cores, nullopt for the others.
// The full read that follows must agree, or collect starts again without a sink.
std::vector<std::optional<CoreKeys>> ReadLayout(const std::vector<RankFile>& files, double legacy_clock_hz,
                                                std::string& buffer) {
  std::vector<std::optional<CoreKeys>> layout(files.size());
  for (size_t fi = 0; fi < files.size(); ++fi) {
    Result<Dump> dump = ReadDump(files[fi], legacy_clock_hz, DumpDetail::kLayout, &buffer);
    if (dump.ok()) layout[fi] = KeysOf(*dump);
  }
  return layout;
}

std::string SlotList(const std::vector<uint32_t>& slots) {
  std::string out;
  for (size_t i = 0; i < slots.size() && i < 8; ++i) out += (i ? ", " : "") + std::to_string(slots[i]);
  if (slots.size() > 8) out += fmt::format(", ... ({} in all)", slots.size());
  return out;
}

}  // namespace

Result<Dump> ReadDump(const RankFile& f, double legacy_clock_hz, DumpDetail detail, std::string* buffer) {
  const std::string path = f.path.string();
  if (f.format == DumpFormat::kNative) {
    OPTRACE_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(f.path, MappedFile::Access::kSparse));
    Result<Dump> dump = DecodeNativeDump(file.bytes(), path, f.rank, detail);
    OPTRACE_RETURN_IF_ERROR(file.CheckWhole());  // a dump that shrank mid-read is this rank's error
    return dump;
  }
  if (buffer) return ReadLegacyDumpFile(f.path, f.rank, legacy_clock_hz, detail, *buffer);
  OPTRACE_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(f.path, MappedFile::Access::kSequential));
  Result<Dump> dump = DecodeLegacyDump(file.bytes(), path, f.rank, legacy_clock_hz, detail);
  OPTRACE_RETURN_IF_ERROR(file.CheckWhole());
  return dump;
}

bool LooksLikeCpuDebugClock(const Dump& dump) {
  if (dump.format != DumpFormat::kLegacy || dump.cores.empty()) return false;
  for (const CoreSeries& c : dump.cores)
    if (!(c.start_ticks >= 1'000'000'000'000'000'000 && c.start_ticks < 4'000'000'000'000'000'000)) return false;
  return true;
}

const char* PairModeName(PairMode m) {
  switch (m) {
    case PairMode::kNest: return "nest";
    case PairMode::kSeq: return "seq";
    case PairMode::kFifo: return "legacy";
  }
  return "?";
}

std::string IntervalName(const LabelInfo& label, uint32_t payload, NameStyle style, bool fifo) {
  // SPEC 5: the reference collector's names, exactly.
  if (style == NameStyle::kLegacy) {
    if (fifo) return fmt::format("{} [extra:{}]", label.name, payload);
    return fmt::format("{} [extra:{}] #{}", label.name, payload & 0xffu, SeqOf(payload));
  }
  return label.name;
}

Result<CollectResult> Collect(const CollectOptions& o) {
  OPTRACE_ASSIGN_OR_RETURN(std::vector<RankFile> files, FindRankFiles(o.inputs));
  if (!o.map) {
    Status first_error;
    for (const RankFile& f : files) {
      if (f.format != DumpFormat::kLegacy) continue;
      // A file that is not a legacy dump at all is the first thing to fix: say that, not "give a map".
      Result<Dump> dump = ReadDump(f, o.legacy_clock_mhz * 1e6);
      if (!dump.ok()) {
        if (first_error.ok()) first_error = dump.status();
        continue;
      }
      return UsageError("{}: legacy dumps number their points 1, 2, 3...; give the point_map.json of the same "
                        "build with --map (or the sources with --source)",
                        f.path.string());
    }
    if (!first_error.ok()) {
      bool any_native = std::any_of(files.begin(), files.end(), [](const RankFile& f) { return f.format == DumpFormat::kNative; });
      if (!any_native) return first_error;
    }
  }
  CollectResult r;
  Collection& c = r.collection;
  Diagnostics& d = r.diagnostics;
  Resolver resolver(o.map, c);
  if (!o.map) d.Add(Problem::kNoMap);
  // Sequential ids can shift without a single unknown id: the labels' nesting is what shows it.
  std::optional<LabelNestingCheck> nesting;
  if (o.map && o.map->scheme == PointIdScheme::kLegacySequential) nesting.emplace(*o.map);
  // A native map's point set, as the build hook stamped it into the binary (word 7; 0 unknown).
  const uint64_t map_fingerprint =
      o.map && o.map->scheme == PointIdScheme::kFnv1a31 ? PointSetFingerprint(*o.map) : 0;
  std::vector<int64_t> parents;
  uint64_t overflow_words = 0;
  Status first_error;
  std::vector<ResolvedEvent> resolved;
  std::string buffer;  // each legacy dump in turn
  std::vector<std::optional<CoreKeys>> layout;
  if (o.sink) {
    layout = ReadLayout(files, o.legacy_clock_mhz * 1e6, buffer);
    std::vector<SeriesInfo> cores;
    for (size_t fi = 0; fi < files.size(); ++fi)
      if (layout[fi])
        for (const auto& [kind, index] : *layout[fi]) cores.push_back(SeriesInfo{files[fi].rank, kind, index, 0});
    OPTRACE_RETURN_IF_ERROR(o.sink->Begin(cores));
  } else {
    c.intervals.reserve(IntervalBound(files));
    AdviseHugePages(c.intervals.data(), c.intervals.capacity() * sizeof(Interval));
  }
  // The collection's order (rank, kind, core; each core's own order kept) and --depth. Dumps are
  // usually read in core order already: checking is one pass, sorting a copy of all.
  auto order_and_filter = [&] {
    auto by_core = [](const Interval& a, const Interval& b) {
      return std::tie(a.rank, a.kind, a.core_index) < std::tie(b.rank, b.kind, b.core_index);
    };
    if (!std::is_sorted(c.intervals.begin(), c.intervals.end(), by_core)) {
      std::stable_sort(c.intervals.begin(), c.intervals.end(), by_core);
    }
    ApplyDepth(c.intervals, o.depth);
    r.interval_count += c.intervals.size();
  };
  // With a sink, a rank's intervals go to it ordered and filtered as the whole collection's are
  // (FindRankFiles gives the files sorted by rank, one per rank, so ordering each rank orders all),
  // then they are dropped: a core's at a time (`by_core`) when the rank's cores come in the
  // collection's order and --depth filters nothing, else the whole rank's once it is read. A trace
  // aligned per rank needs the rank's earliest tick before its first interval: by core, it is
  // found first in the events (every mapped event becomes an interval's end or an instant, and an
  // interval ends no earlier than it begins) and checked against what was made at the end of the
  // rank; were it ever different, collect starts again, held (CollectResult::layout_changed).
  size_t rank_first_instant = 0;
  bool by_core = false;
  std::optional<int64_t> guessed, begun_first;  // by core: the earliest tick given, the earliest begin made
  auto earliest_mapped_tick = [&](Dump& dump) -> Result<std::optional<int64_t>> {
    std::optional<int64_t> t;
    for (CoreSeries& core : dump.cores) {
      if (dump.deferred) OPTRACE_RETURN_IF_ERROR(dump.deferred->Load(core));
      for (const Event& e : core.events) {
        const int64_t ticks = std::clamp(e.ticks, -kMaxTicks, kMaxTicks);  // as the core's loop clamps it
        if ((!t || ticks < *t) && resolver.Resolve(e.point_id) != kNoMapping) t = ticks;
      }
      if (dump.deferred) std::vector<Event>().swap(core.events);
    }
    return t;
  };
  auto end_of_file = [&](int32_t rank) -> Status {
    if (!o.sink) return Status::Ok();
    std::optional<int64_t> earliest = begun_first;
    if (!by_core) order_and_filter();
    for (const Interval& iv : c.intervals) earliest = std::min(earliest.value_or(iv.begin_ticks), iv.begin_ticks);
    for (size_t i = rank_first_instant; i < c.instants.size(); ++i)
      earliest = std::min(earliest.value_or(c.instants[i].ticks), c.instants[i].ticks);
    Status st;
    if (by_core) {
      if (earliest != guessed) r.layout_changed = true;
    } else {
      st = o.sink->BeginRank(rank, earliest);
      if (st.ok()) st = o.sink->TakeIntervals(c, c.intervals);
    }
    c.intervals.clear();
    rank_first_instant = c.instants.size();
    by_core = false;
    guessed = begun_first = std::nullopt;
    return st;
  };
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const RankFile& f = files[fi];
    const std::string path = f.path.string();
    if (o.progress) o.progress(fi, files.size(), path);
    // One bad rank never costs the others (issue 11): it is named in the problems and skipped.
    // Deferred: a legacy dump's events are read a core at a time below, not a rank's at once.
    Result<Dump> read = ReadDump(f, o.legacy_clock_mhz * 1e6, DumpDetail::kDeferred, &buffer);
    if (o.sink && !(read.ok() ? layout[fi] && KeysOf(*read) == *layout[fi] : !layout[fi])) {
      r.layout_changed = true;
      return r;
    }
    if (!read.ok()) {
      d.Add(Problem::kRankUnreadable, read.status().message());
      if (first_error.ok()) first_error = read.status();
      ++r.unreadable_ranks;
      OPTRACE_RETURN_IF_ERROR(end_of_file(f.rank));
      continue;
    }
    Dump dump = std::move(*read);
    if (!o.legacy_clock_explicit && LooksLikeCpuDebugClock(dump)) {
      for (CoreSeries& core : dump.cores) core.clock_hz = 1e9;
      d.Add(Problem::kCpuDebugClock, fmt::format("{}: read at 1000 MHz", path));
    }
    const PairMode mode = o.mode.value_or(f.format == DumpFormat::kNative ? PairMode::kNest : PairMode::kSeq);
    InputSummary sum{path, f.rank, f.format, dump.slot_words, dump.cores.size(), dump.never_written, 0, 0, mode};
    if (dump.never_written > 0) {
      d.Add(Problem::kNeverWrittenSlot,
            fmt::format("{}: {} {} never written{}", path, f.format == DumpFormat::kNative ? "slot(s)" : "row(s)",
                        SlotList(dump.never_written_slots),
                        dump.never_written_nonzero
                            ? fmt::format(" ({} holding leftover memory, not a slot header)", dump.never_written_nonzero)
                            : ""),
            dump.never_written);
    }
    for (const std::string& bad : dump.corrupt_slots) d.Add(Problem::kCorruptSlot, bad);
    {
      std::map<std::tuple<CoreKind, uint32_t, uint32_t>, uint32_t> owner;
      for (const CoreSeries& core : dump.cores) {
        auto [it, fresh] = owner.emplace(std::make_tuple(core.kind, core.core_index, core.sub_block), core.slot);
        if (!fresh) {
          d.Add(Problem::kDuplicateCore, fmt::format("{}: slots {} and {} both claim {} {}", path, it->second, core.slot,
                                                     CoreKindName(core.kind), core.core_index));
        }
      }
    }
    if (map_fingerprint != 0) {
      // Certain, unlike the heuristics below: the binary says which scan it was built with.
      uint64_t other = 0, seen = 0;
      for (const CoreSeries& core : dump.cores) {
        if (core.fingerprint == 0 || core.fingerprint == map_fingerprint) continue;
        ++other;
        seen = core.fingerprint;
      }
      if (other > 0) {
        d.Add(Problem::kMapOtherScan,
              fmt::format("{}: {} slot(s) built with point set 0x{:016x}, the map's is 0x{:016x}", path, other, seen,
                          map_fingerprint),
              other);
      }
    }
    if (o.sink) {
      by_core = o.depth == 0 && std::is_sorted(dump.cores.begin(), dump.cores.end(),
                                               [](const CoreSeries& a, const CoreSeries& b) {
                                                 return std::tie(a.kind, a.core_index) < std::tie(b.kind, b.core_index);
                                               });
      if (by_core) {
        OPTRACE_ASSIGN_OR_RETURN(guessed, earliest_mapped_tick(dump));
        OPTRACE_RETURN_IF_ERROR(o.sink->BeginRank(f.rank, guessed));
      }
    }
    if (o.sink && !by_core) {
      // A rank's intervals are held until the sink takes them: sized from its records (an interval
      // takes two) with 1/16 to spare, not doubled up to past them, and kept for the next ranks.
      // The table is empty here: a bigger one replaces it rather than copying it.
      size_t events = dump.deferred ? dump.deferred->EventCount() : 0;
      for (const CoreSeries& core : dump.cores) events += core.events.size();
      if (c.intervals.capacity() < events / 2) {
        c.intervals = std::vector<Interval>();
        c.intervals.reserve(events / 2 + events / 32);
      }
    }
    for (CoreSeries& core : dump.cores) {
      if (dump.deferred) OPTRACE_RETURN_IF_ERROR(dump.deferred->Load(core));
      sum.events += core.events.size();
      sum.dropped += core.dropped;
      r.records += core.events.size();
      double hz = core.clock_hz;
      if (hz <= 0) {
        hz = o.legacy_clock_mhz * 1e6;
        d.Add(Problem::kClockMissing, fmt::format("{}: slot {}", path, core.slot));
      } else if (!(hz >= kMinClockHz && hz <= kMaxClockHz)) {
        d.Add(Problem::kCorruptSlot,
              fmt::format("{}: slot {}: clock {} Hz is impossible (1 kHz to 100 GHz); --clock-mhz {} used instead",
                          path, core.slot, hz, o.legacy_clock_mhz));
        hz = o.legacy_clock_mhz * 1e6;
      }
      const std::string core_name = fmt::format("rank {} {} {}", f.rank, CoreKindName(core.kind), core.core_index);
      if (core.dropped > 0) {
        overflow_words = std::max(overflow_words, format::SlotWordsForEvents(core.events.size() + core.dropped));
        d.Add(Problem::kSlotOverflow,
              fmt::format("{} (slot {}): {} events kept, {} dropped", core_name, core.slot, core.events.size(),
                          core.dropped),
              core.dropped);
      }
      if (f.format == DumpFormat::kLegacy && core.events.size() == core.capacity && core.capacity > 0) {
        d.Add(Problem::kLegacyRowFull, fmt::format("{}: {} records", core_name, core.events.size()));
      }
      const uint32_t series = static_cast<uint32_t>(c.series.size());
      c.series.push_back(SeriesInfo{f.rank, core.kind, core.core_index, hz});
      resolved.clear();
      resolved.reserve(core.events.size());
      // A timestamp beyond +-2^61 ticks (a flipped high bit) is clamped there, so every later
      // difference of two ticks (durations, origins) stays inside int64.
      bool clamped = false;
      for (Event& e : core.events) {
        if (e.ticks > kMaxTicks || e.ticks < -kMaxTicks) {
          if (!clamped)
            d.Add(Problem::kCorruptSlot, fmt::format("{} (slot {}): timestamp {} is impossible; clamped to +-2^61",
                                                     core_name, core.slot, e.ticks));
          clamped = true;
          e.ticks = e.ticks > 0 ? kMaxTicks : -kMaxTicks;
        }
      }
      for (size_t i = 0; i < core.events.size(); ++i) {
        const Event& e = core.events[i];
        if (i > 0 && e.ticks < core.events[i - 1].ticks) {
          d.Add(Problem::kTimestampBackwards,
                fmt::format("{}: record {} at tick {} after tick {}", core_name, i, e.ticks, core.events[i - 1].ticks));
        }
        const int64_t res = resolver.Resolve(e.point_id);
        if (res == kNoMapping) {
          ++r.skipped_no_mapping;
          continue;
        }
        resolved.push_back(
            ResolvedEvent{static_cast<uint32_t>(res >> 1), (res & 1) != 0, e.point_id, e.payload, e.ticks});
      }
      const size_t first = c.intervals.size();
      const size_t first_instant = c.instants.size();
      PairStats ps = PairCore(CoreRef{f.rank, core.kind, core.core_index, series}, resolved, mode, c.intervals,
                              c.instants);
      if (ps.crossed) d.Add(Problem::kCrossedNesting, core_name, ps.crossed);
      if (ps.reversed) {
        d.Add(Problem::kTimestampBackwards,
              fmt::format("{}: {} pair(s) end before they begin; kept as flagged instant events, not intervals",
                          core_name, ps.reversed));
      }
      ComputeNesting(std::span<Interval>(c.intervals).subspan(first), nesting ? &parents : nullptr);
      if (nesting) nesting->AddCore(std::span<const Interval>(c.intervals).subspan(first), parents, c.labels);
      for (size_t i = first_instant; i < c.instants.size(); ++i) {
        const Instant& in = c.instants[i];
        const LabelInfo& l = c.labels[in.label];
        d.Add(in.is_begin ? Problem::kUnmatchedBegin : Problem::kUnmatchedEnd,
              fmt::format("{}: '{}' {} at {} (tick {})", core_name, l.name, in.is_begin ? "B" : "E",
                          in.is_begin ? Where(l.begin_file, l.begin_line) : Where(l.end_file, l.end_line), in.ticks));
      }
      if (dump.deferred) std::vector<Event>().swap(core.events);  // one core's events at a time
      if (by_core) {
        for (const Interval& iv : c.intervals) begun_first = std::min(begun_first.value_or(iv.begin_ticks), iv.begin_ticks);
        r.interval_count += c.intervals.size();
        OPTRACE_RETURN_IF_ERROR(o.sink->TakeIntervals(c, c.intervals));
        c.intervals.clear();
      }
    }
    r.inputs.push_back(std::move(sum));
    OPTRACE_RETURN_IF_ERROR(end_of_file(f.rank));
    if (r.layout_changed) return r;
  }
  if (o.progress) o.progress(files.size(), files.size(), "");
  if (r.unreadable_ranks == files.size() && !first_error.ok()) return first_error;  // nothing to collect
  if (overflow_words > 0) {
    d.SetSummary(Problem::kSlotOverflow,
                 fmt::format("PROF_SIZE_PER_CORE {} would have fit every slot", NextPow2(overflow_words)));
  }
  // Point-id coverage: the three counts of SPEC section 5.
  r.ids_in_dumps = resolver.seen().size();
  if (o.map) {
    r.ids_in_map = o.map->points.size();
    for (const auto& [id, res] : resolver.seen()) r.ids_in_both += res != kNoMapping;
    const std::string counts = fmt::format("distinct point ids: {} in the dumps, {} in the map, {} in both",
                                           r.ids_in_dumps, r.ids_in_map, r.ids_in_both);
    if (r.ids_in_dumps > 0 && r.ids_in_both == 0) {
      return BadInputError("{}: no point id of the dumps is in this map ({}): the map is from another build; "
                           "regenerate it with 'optrace scan' on the sources the kernel was built from",
                           o.map_origin.empty() ? "point map" : o.map_origin, counts);
    }
    if (r.skipped_no_mapping > 0) {
      d.Add(Problem::kSkippedNoMapping, {}, r.skipped_no_mapping);
      d.SetSummary(Problem::kSkippedNoMapping, counts);
    }
    // A map from another build usually still shares some ids: say so when most records are
    // unmapped, or (sequential legacy ids, one TRACE_POINT added or removed) when most mapped
    // records no longer pair up.
    uint64_t unmatched = d.Count(Problem::kUnmatchedBegin) + d.Count(Problem::kUnmatchedEnd);
    uint64_t mapped = r.records - r.skipped_no_mapping;
    if (r.records > 0 && r.skipped_no_mapping * 2 > r.records) {
      d.Add(Problem::kMapMismatch,
            fmt::format("{} of {} records have ids not in the map ({}): the map is probably from another build; "
                        "regenerate it with 'optrace scan' on the sources the kernel was built from",
                        r.skipped_no_mapping, r.records, counts));
    } else if (o.map->scheme == PointIdScheme::kLegacySequential && mapped >= 4 && unmatched * 2 > mapped) {
      d.Add(Problem::kMapMismatch,
            fmt::format("{} of {} mapped records are unmatched B/E: with sequential ids this is the sign of a map "
                        "from another build (ids shifted by a TRACE_POINT added or removed); regenerate the map",
                        unmatched, mapped));
    } else if (nesting && nesting->Contradicts()) {
      d.Add(Problem::kMapMismatch,
            fmt::format("{} of {} intervals whose label names a parent label of the map are not inside it (e.g. {}): "
                        "the map probably does not fit the binary that wrote the dumps. With sequential ids a B/E pair added or removed "
                        "since the map was made shifts every later label while everything still pairs; regenerate "
                        "the map from the sources the kernel was built from",
                        nesting->contradicted(), nesting->checked(), nesting->example()));
    }
  }
  if (!o.sink) order_and_filter();
  if (o.sink) c.intervals = std::vector<Interval>();  // the last rank's table, before the caller's statistics
  return r;
}

}  // namespace optrace::collect
