// Binary (de)serialization of the stage parts: one Io() per struct serves both directions.
#include "analyze/pipeline/stage_io.h"

#include <cstring>
#include <type_traits>

#include "core/file_io.h"

namespace optrace::analyze {
namespace {

constexpr uint64_t kFnvPrime = 0x100000001b3ull;

// Streams to `os` through a 1 MiB buffer: a stage file of a large capture is as big as its
// event table, so it is never built in memory as a whole.
// Large arrays (the event and pipeline tables) are hashed and written from where they are,
// without a copy through the buffer.
struct Writer {
  static constexpr bool kReading = false;
  std::ostream* os = nullptr;
  std::string buf;
  StageChecksum hash;
  void Raw(const void* p, size_t n) {
    if (n == 0) return;  // an empty vector's data() may be null
    if (n >= (64u << 10)) {
      Flush();
      hash.Update(p, n);
      os->write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
      return;
    }
    buf.append(static_cast<const char*>(p), n);
    if (buf.size() >= (1u << 20)) Flush();
  }
  void Flush() {
    hash.Update(buf.data(), buf.size());
    os->write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
  bool Fits(uint64_t) const { return true; }
};

struct Reader {
  static constexpr bool kReading = true;
  std::string_view in;
  size_t pos = 0;
  bool ok = true;
  void Raw(void* p, size_t n) {
    if (n == 0) return;
    if (!ok || n > in.size() - pos) {
      ok = false;
      std::memset(p, 0, n);
      return;
    }
    std::memcpy(p, in.data() + pos, n);
    pos += n;
  }
  bool Fits(uint64_t bytes) const { return ok && bytes <= in.size() - pos; }
};

template <typename A, typename T>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
void Io(A& a, T& v) {
  a.Raw(&v, sizeof v);
}
// A bool or an enum read from a damaged file must still hold one of its values (a bool byte of 3 is
// undefined behaviour; an enum past its last value indexes past name tables).
template <typename A>
void Io(A& a, bool& v) {
  uint8_t byte = v ? 1 : 0;
  a.Raw(&byte, 1);
  if constexpr (A::kReading)
    if (byte > 1) a.ok = false;
  v = byte == 1;
}
constexpr unsigned ValueCount(InputKind) { return 3; }
constexpr unsigned ValueCount(OpType) { return kOpTypeCount; }
constexpr unsigned ValueCount(Pipe) { return kPipeCount; }
constexpr unsigned ValueCount(BlockKind) { return static_cast<unsigned>(BlockKind::kOther) + 1; }
constexpr unsigned ValueCount(Severity) { return static_cast<unsigned>(Severity::kHigh) + 1; }
template <typename A, typename T>
  requires std::is_enum_v<T>
void Io(A& a, T& v) {
  std::underlying_type_t<T> raw = static_cast<std::underlying_type_t<T>>(v);
  a.Raw(&raw, sizeof raw);
  if constexpr (A::kReading) {
    if (static_cast<unsigned>(raw) >= ValueCount(T{})) {
      a.ok = false;
      raw = 0;
    }
  }
  v = static_cast<T>(raw);
}
template <typename A>
void Io(A& a, std::string& s) {
  uint64_t n = s.size();
  Io(a, n);
  if constexpr (A::kReading) {
    if (!a.Fits(n)) {
      a.ok = false;
      return;
    }
    s.resize(n);
  }
  a.Raw(s.data(), n);
}
template <typename A>
void Io(A& a, std::filesystem::path& p) {
  std::string s = p.string();
  Io(a, s);
  if constexpr (A::kReading) p = s;
}
template <typename A, typename T>
void Io(A& a, std::vector<T>& v);
template <typename A, typename K, typename V>
void Io(A& a, std::map<K, V>& m);
template <typename A, typename X, typename Y>
void Io(A& a, std::pair<X, Y>& p) {
  Io(a, p.first);
  Io(a, p.second);
}
template <typename A, typename T, size_t N>
void Io(A& a, std::array<T, N>& v) {
  for (T& x : v) Io(a, x);
}
template <typename A, typename... T>
void IoAll(A& a, T&... x) {
  (Io(a, x), ...);
}

// Plain structs copied as bytes (no pointers, no strings).
template <typename A>
void Io(A& a, Event& e) {
  a.Raw(&e, sizeof e);
}
template <typename A>
void Io(A& a, PipeRow& p) {
  a.Raw(&p, sizeof p);
}
template <typename A>
void Io(A& a, PipeStore& p) {
  IoAll(a, p.rows(), p.values());
}
template <typename A>
void Io(A& a, EventRange& r) {
  IoAll(a, r.first, r.last);
}
template <typename A>
void Io(A& a, IndexRange& r) {
  IoAll(a, r.first, r.last);
}
template <typename A>
void Io(A& a, StepAnatomy& x) {
  a.Raw(&x, sizeof x);
}
template <typename A>
void Io(A& a, StepTraceRow& x) {
  a.Raw(&x, sizeof x);
}
template <typename A>
void Io(A& a, DurationStats& x) {
  a.Raw(&x, sizeof x);
}
template <typename A>
void Io(A& a, RankValue& x) {
  IoAll(a, x.rank, x.value);
}
template <typename A>
void Io(A& a, SlowRankVote& x) {
  IoAll(a, x.rank, x.votes, x.vote_share);
}
template <typename A>
void Io(A& a, RankLateness& x) {
  IoAll(a, x.rank, x.late_collectives, x.caused_wait_ms, x.caused_wait_share, x.worst_wait_ms, x.worst_step_id,
        x.worst_step_share);
}
template <typename A>
void Io(A& a, AlignedCollective::Where& x) {
  IoAll(a, x.rank, x.event);
}

template <typename A>
void Io(A& a, RankInput& x) {
  IoAll(a, x.rank, x.rank_source, x.kind, x.dir, x.kernel_details, x.kernel_slices, x.db, x.trace_view, x.communication,
        x.communication_matrix, x.step_trace_time, x.op_statistic, x.api_statistic, x.profiler_info, x.profiler_metadata, x.analysis_db);
}
template <typename A>
void Io(A& a, Discovery& x) {
  IoAll(a, x.roots, x.rules_fingerprint, x.run, x.capture_count, x.capture, x.ranks, x.ranks_without_kernels);
}
template <typename A>
void Io(A& a, SourceFile& x) {
  IoAll(a, x.path, x.table);
}
template <typename A>
void Io(A& a, StepMarker& x) {
  IoAll(a, x.step_id, x.start_ns, x.end_ns, x.source);
}
template <typename A>
void Io(A& a, CommPacketBucket& x) {
  IoAll(a, x.packet_mb, x.count, x.total_ms);
}
template <typename A>
void Io(A& a, CommBandwidth& x) {
  IoAll(a, x.transport, x.size_mb, x.time_ms, x.bandwidth_gbps, x.large_packet_ratio, x.sizes);
}
template <typename A>
void Io(A& a, CommOp& x) {
  IoAll(a, x.name, x.group, x.step, x.p2p, x.start_ns, x.elapse_ms, x.transit_ms, x.wait_ms, x.sync_ms, x.idle_ms,
        x.wait_ratio, x.sync_ratio, x.bandwidth);
}
template <typename A>
void Io(A& a, CommRankSummary& x) {
  IoAll(a, x.rank, x.ops, x.elapse_ms, x.transit_ms, x.wait_ms, x.sync_ms, x.idle_ms, x.wait_ratio, x.sync_ratio);
}
template <typename A>
void Io(A& a, CommTransportSummary& x) {
  IoAll(a, x.rank, x.transport, x.ops, x.size_mb, x.time_ms, x.bandwidth_gbps, x.small_packet_time_share,
        x.small_packet_count);
}
template <typename A>
void Io(A& a, CommLinkSummary& x) {
  IoAll(a, x.group, x.src, x.dst, x.transport, x.reported_by, x.src_global, x.dst_global, x.entries, x.size_mb, x.time_ms,
        x.bandwidth_gbps);
}
template <typename A>
void Io(A& a, ParallelGroup& x) {
  IoAll(a, x.hash, x.key, x.pg_name, x.kind, x.global_ranks);
}
template <typename A>
void Io(A& a, HostEventNear& x) {
  IoAll(a, x.process, x.name, x.cat, x.start_ns, x.dur_ns, x.overlap_ns);
}
template <typename A>
void Io(A& a, BubbleWindow& x) {
  IoAll(a, x.rank, x.step_id, x.start_ns, x.end_ns, x.next_event, x.label, x.rule, x.host);
}
template <typename A>
void Io(A& a, GroupSkew& x) {
  IoAll(a, x.group, x.pg_name, x.kind, x.collectives, x.max_skew_ratio, x.mean_skew_ratio, x.last_rank, x.last_rank_count);
}
template <typename A>
void Io(A& a, CommMatrixLink& x) {
  IoAll(a, x.step, x.key, x.group, x.op_name, x.p2p, x.src, x.dst, x.transport, x.size_mb, x.time_ms, x.bandwidth_gbps);
}
template <typename A>
void Io(A& a, SdmaOpAlignment& x) {
  IoAll(a, x.op, x.calls, x.unaligned_calls, x.tasks, x.unaligned_tasks, x.bytes, x.dur_ns, x.unaligned_dur_ns,
        x.unaligned_example_bytes);
}
template <typename A>
void Io(A& a, ProcessIdentity& x) {
  IoAll(a, x.hostname, x.hostname_from, x.pid, x.pid_from, x.inferred, x.conflict);
}
template <typename A>
void Io(A& a, RankIdentity& x) {
  IoAll(a, x.profiler_level, x.aic_metrics, x.torch_npu_version, x.cann_version, x.device_name, x.csv_columns,
        x.process);
}
template <typename A>
void Io(A& a, ApiStat& x) {
  IoAll(a, x.level, x.name, x.time_us, x.count, x.row);
}
template <typename A>
void Io(A& a, RankTable& x) {
  IoAll(a, x.rank, x.kind, x.event_source, x.node, x.device_id, x.dir, x.base_ns, x.events, x.pipes, x.pipe_overflow, x.long_waits, x.files, x.step_markers, x.step_trace, x.api_stats, x.api_statistic, x.comm_ops, x.comm_matrix, x.parallel_groups,
        x.identity, x.sdma_alignment);
}
template <typename A>
void Io(A& a, Step& x) {
  IoAll(a, x.rank, x.step_id, x.step_source, x.events, x.start_ns, x.end_ns, x.complete, x.partial_capture_boundary,
        x.anatomy, x.prelaunch_gap_ns, x.tail_gap_ns, x.profiler_step_ns, x.host_prepare_ns, x.host_tail_ns,
        x.profiler_step_source, x.comm_ns, x.compute_ns, x.layers, x.layer_anchor, x.step_class,
        x.anomaly_tags);
}
template <typename A>
void Io(A& a, Block& x) {
  IoAll(a, x.rank, x.layer, x.kind, x.events, x.start_ns, x.end_ns, x.block_class);
}
template <typename A>
void Io(A& a, Layer& x) {
  IoAll(a, x.rank, x.step, x.index_in_step, x.events, x.start_ns, x.end_ns, x.anchor_name, x.companion_layer, x.outlier,
        x.absorbed, x.blocks, x.layer_class);
}
template <typename A>
void Io(A& a, ShapeClass& x) {
  IoAll(a, x.id, x.signature, x.has_shapes, x.members);
}
template <typename A>
void Io(A& a, BoundInfo& x) {
  IoAll(a, x.bound_stage, x.bound_family, x.dominant_core);
}
template <typename A>
void Io(A& a, OperatorSummary& x) {
  IoAll(a, x.rank, x.name, x.type, x.op_type, x.stats, x.pipe_sums, x.pipe_event_count, x.bound, x.first_row,
        x.last_row, x.file, x.dynamic_calls, x.static_calls, x.dynamic_us, x.static_us);
}
template <typename A>
void Io(A& a, OperatorClassSummary& x) {
  IoAll(a, x.name, x.type, x.op_type, x.rank_count, x.call_count, x.duration_sum_us, x.pipe_sums, x.bound,
        x.rank_duration_min_us, x.rank_duration_max_us, x.rank_duration_p50_us, x.rank_duration_skew_ratio);
}
template <typename A>
void Io(A& a, HcclSummary& x) {
  IoAll(a, x.kind, x.comm_aiv_fused, x.rank, x.stats);
}
template <typename A>
void Io(A& a, HcclClassSummary& x) {
  IoAll(a, x.kind, x.comm_aiv_fused, x.rank_count, x.count, x.total_us, x.rank_avg_min_us, x.rank_avg_max_us,
        x.rank_avg_mean_us, x.rank_skew_ratio, x.min_rank, x.max_rank);
}
template <typename A>
void Io(A& a, StepClassSummary& x) {
  IoAll(a, x.id, x.members, x.wall_ms_sum, x.wall_ms_mean, x.wall_ms_p50, x.wall_ms_p90, x.head_ratio_mean,
        x.main_ratio_mean, x.tail_ratio_mean, x.bubble_ratio_mean, x.top_layer_classes, x.top_ops);
}
template <typename A>
void Io(A& a, LayerClassSummary& x) {
  IoAll(a, x.id, x.members, x.companion_layer, x.block_kinds, x.block_kind_wall_share_mean, x.wall_ms_sum,
        x.wall_ms_mean, x.wall_ms_p50, x.wall_ms_p90, x.top_ops);
}
template <typename A>
void Io(A& a, BlockSummary& x) {
  IoAll(a, x.block, x.wall_ms, x.comm_share, x.pipe_sums, x.bound, x.top_ops);
}
template <typename A>
void Io(A& a, BlockClassSummary& x) {
  IoAll(a, x.id, x.kind, x.members, x.wall_ms_sum, x.wall_ms_mean, x.wall_ms_p50, x.wall_ms_p90, x.comm_share_mean,
        x.pipe_sums, x.bound, x.bound_family_member_histogram, x.top_ops);
}
template <typename A>
void Io(A& a, RankSummary& x) {
  IoAll(a, x.rank, x.event_count, x.step_count, x.complete_step_count, x.wall_ms_sum, x.busy_ms_sum, x.bubble_ms_sum,
        x.comm_ms_sum, x.compute_ms_sum, x.step_wall_ms_p50, x.step_wall_ms_p90, x.bubbling_step_count,
        x.bubble_recurrence_ratio, x.dominant_idle_pattern, x.recurring_bubble_pattern, x.op_type_ms,
        x.kernel_coverage, x.low_confidence, x.event_source);
}
template <typename A>
void Io(A& a, StepCoverage& x) {
  IoAll(a, x.rank, x.step_id, x.kernel_compute_ms, x.trace_compute_ms, x.kernel_comm_ms, x.trace_comm_ms,
        x.kernel_wall_ms, x.trace_step_ms, x.kernel_hccl_ops, x.json_hccl_ops, x.coverage);
}
template <typename A>
void Io(A& a, LiveAllocation& x) {
  IoAll(a, x.name, x.size_mb, x.row);
}
template <typename A>
void Io(A& a, ComponentMemory& x) {
  IoAll(a, x.component, x.peak_reserved_mb, x.peak_allocated_mb, x.peak_rel_ns, x.peak_step_id, x.peak_row);
}
template <typename A>
void Io(A& a, MemoryPoint& x) {
  IoAll(a, x.rel_ns, x.reserved_mb, x.allocated_mb);
}
template <typename A>
void Io(A& a, RankMemory& x) {
  IoAll(a, x.rank, x.memory_record, x.operator_memory, x.components, x.live_at_peak, x.live_component,
        x.timeline_component, x.timeline);
}
template <typename A>
void Io(A& a, Summaries& x) {
  IoAll(a, x.operators, x.operator_classes, x.hccl, x.hccl_classes, x.step_classes, x.layer_classes, x.blocks,
        x.block_classes, x.ranks, x.coverage, x.comm_ranks, x.comm_transports, x.comm_links, x.groups, x.memory, x.events_with_pipeline, x.events_total, x.operators_with_pipeline, x.operators_total);
}
template <typename A>
void Io(A& a, AlignedStep& x) {
  IoAll(a, x.step_id, x.wall_ms, x.compute_ms, x.wall_skew_ratio, x.compute_skew_ratio, x.slowest_rank, x.fastest_rank);
}
template <typename A>
void Io(A& a, AlignedCollective& x) {
  IoAll(a, x.step_id, x.name, x.occurrence, x.kind, x.dur_us, x.skew_ratio, x.shortest_rank, x.outlier_rank,
        x.waiter_rank, x.wait_caused_us, x.test, x.statistic, x.critical, x.events);
}
template <typename A>
void Io(A& a, StepLaunch& x) {
  IoAll(a, x.rank, x.step_id, x.complete, x.step_wall_ns, x.launches, x.delay_p50_ns, x.delay_p90_ns, x.delay_max_ns,
        x.launch_bound_idle_ns, x.launch_bound_gaps, x.longest_wait_start_ns, x.longest_wait_end_ns, x.max_queue_depth);
}
template <typename A>
void Io(A& a, ExpertRankLoad& x) {
  IoAll(a, x.rank, x.calls, x.tokens_per_step, x.ms_per_step, x.hot_steps, x.first_row, x.last_row, x.file);
}
template <typename A>
void Io(A& a, ExpertGroupLoad& x) {
  IoAll(a, x.group, x.by_tokens, x.ranks, x.steps, x.mean_peak_to_mean, x.max_peak_to_mean, x.max_over_min,
        x.hot_rank, x.worst_step_id);
}
template <typename A>
void Io(A& a, PipelineStage& x) {
  IoAll(a, x.stage, x.ranks, x.steps, x.compute_ms, x.comm_ms, x.bubble_ms, x.wall_ms, x.warmup_ms, x.cooldown_ms,
        x.bounding_steps, x.worst_step_id, x.worst_rank);
}
template <typename A>
void Io(A& a, CrossRank& x) {
  IoAll(a, x.ranks, x.alignment_method, x.steps, x.collectives, x.tested_collectives, x.votes, x.lateness, x.aligned_wall_ms,
        x.max_step_skew_ratio,
        x.max_collective_skew_ratio, x.compute_imbalance_ratio, x.groups, x.bubbles, x.bubbles_without_trace,
        x.launches, x.launch_ranks_without_flows, x.expert_load, x.pipeline_stages);
}
template <typename A>
void Io(A& a, Evidence& x) {
  IoAll(a, x.file, x.row_first, x.row_last, x.rank, x.step_id, x.window_start_ns, x.window_end_ns, x.note);
}
template <typename A>
void Io(A& a, Finding& x) {
  IoAll(a, x.id, x.severity, x.type, x.summary, x.rank, x.ranks, x.step_id, x.numbers, x.evidence, x.confidence,
        x.knowledge_refs);
}
template <typename A>
void Io(A& a, DataIssue& x) {
  IoAll(a, x.name, x.severity, x.description, x.count, x.example);
}
template <typename A>
void Io(A& a, StageTiming& x) {
  IoAll(a, x.stage, x.status, x.seconds);
}
template <typename A>
void Io(A& a, Identity& x) {
  IoAll(a, x.roots, x.ranks, x.input_kinds, x.profiler_level, x.torch_npu_version, x.cann_version, x.device_name,
        x.event_count, x.step_count, x.layer_count);
}

template <typename A, typename T>
void Io(A& a, std::vector<T>& v) {
  uint64_t n = v.size();
  Io(a, n);
  if constexpr (A::kReading) {
    if (!a.Fits(n)) {  // every element takes at least one byte
      a.ok = false;
      return;
    }
    v.clear();
    v.resize(n);
  }
  if constexpr (std::is_same_v<T, Event> || std::is_same_v<T, PipeRow> || std::is_arithmetic_v<T>) {
    a.Raw(v.data(), n * sizeof(T));
  } else {
    for (T& x : v) {
      Io(a, x);
      if constexpr (A::kReading)
        if (!a.ok) return;
    }
  }
}
template <typename A, typename K, typename V>
void Io(A& a, std::map<K, V>& m) {
  uint64_t n = m.size();
  Io(a, n);
  if constexpr (A::kReading) {
    if (!a.Fits(n)) {
      a.ok = false;
      return;
    }
    m.clear();
    for (uint64_t i = 0; i < n && a.ok; ++i) {
      std::pair<K, V> kv;
      Io(a, kv);
      m.insert(std::move(kv));
    }
  } else {
    for (auto& [k, v] : m) {
      K kk = k;
      Io(a, kk);
      Io(a, v);
    }
  }
}

// The part of the result that a stage owns (issues and timings ride along with every stage).
// `ranks` is r.ranks except for a normalize file written in the background (the live tables,
// with a snapshot of the rest in r).
template <typename A>
void StagePart(A& a, Stage stage, AnalysisResult& r, std::vector<RankTable>& ranks) {
  switch (stage) {
    case Stage::kDiscover: IoAll(a, r.discovery); break;
    case Stage::kNormalize: {
      std::vector<std::string> strings = r.strings.strings();
      Io(a, strings);
      if constexpr (A::kReading) r.strings.Assign(std::move(strings));
      IoAll(a, ranks);
      break;
    }
    case Stage::kSegment: IoAll(a, r.steps, r.layers); break;
    case Stage::kClassify: IoAll(a, r.steps, r.layers, r.blocks, r.step_classes, r.layer_classes, r.block_classes); break;
    case Stage::kSummarize: IoAll(a, r.summaries); break;
    case Stage::kCrossRank: IoAll(a, r.cross_rank); break;
    case Stage::kDiagnose: IoAll(a, r.findings, r.limitations); break;
    case Stage::kReport: break;
  }
  IoAll(a, r.issues, r.timings, r.identity);
}

constexpr char kMagic[] = "OPTRACE-STAGE\n";

// What later stages index with, checked after a stage file is decoded: a file that passes its
// checksum but was written by hand (or by a broken writer) must be refused, not trusted into
// out-of-range indices or overflowing times.
Status CheckDecoded(Stage stage, const AnalysisResult& r, const std::string& path) {
  constexpr int64_t kLimit = int64_t{1} << 61;
  auto bad = [&](std::string what) {
    return BadInputError("{}: {}; the stage file is inconsistent: re-run the '{}' stage", path, what, StageName(stage));
  };
  if (stage == Stage::kNormalize) {
    const size_t strings = r.strings.size();
    for (const RankTable& t : r.ranks) {
      for (size_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (e.start_ns < -kLimit || e.start_ns > kLimit || e.dur_ns < 0 || e.dur_ns > kLimit)
          return bad(fmt::format("rank {} event {}: time out of range", t.rank, i));
        for (uint32_t id : {e.name, e.type, e.core, e.input_shapes, e.output_shapes, e.input_dtypes})
          if (id >= strings && !(strings == 0 && id == 0)) return bad(fmt::format("rank {} event {}: string id {}", t.rank, i, id));
        if (e.file >= t.files.size() && !t.files.empty()) return bad(fmt::format("rank {} event {}: file {}", t.rank, i, e.file));
        if (e.pipe != kNone32 && e.pipe >= t.pipes.size()) return bad(fmt::format("rank {} event {}: pipe {}", t.rank, i, e.pipe));
        if (static_cast<int>(e.op_type) >= kOpTypeCount) return bad(fmt::format("rank {} event {}: op type", t.rank, i));
        if (IsLongWait(e.wait) && (e.wait & ~kLongWait) >= t.long_waits.size())
          return bad(fmt::format("rank {} event {}: wait {}", t.rank, i, e.wait & ~kLongWait));
      }
      const std::vector<uint32_t>& values = t.pipes.values();
      for (size_t i = 0; i < t.pipes.size(); ++i) {
        const PipeRow& p = t.pipes.rows()[i];
        const uint32_t valued = p.bits & kPipeFieldMask, missing = (p.bits >> kPipeMaskBits) & kPipeFieldMask;
        if ((p.bits >> (2 * kPipeMaskBits)) > static_cast<unsigned>(OpState::kStatic))
          return bad(fmt::format("rank {} pipeline row {}: OP State", t.rank, i));
        const uint32_t count = PipeMaskCount(valued);
        if (((valued | missing) & ~kPipeAllFields) != 0 || (valued & missing) != 0 || p.first > values.size() ||
            count > values.size() - p.first)
          return bad(fmt::format("rank {} pipeline row {}: fields", t.rank, i));
        for (uint32_t k = 0; k < count; ++k) {
          const uint32_t v = values[p.first + k];
          if (IsPackedOverflow(v) && PackedOverflowIndex(v) >= t.pipe_overflow.size())
            return bad(fmt::format("rank {} pipeline row {}: overflow value {}", t.rank, i, PackedOverflowIndex(v)));
        }
      }
      if (t.base_ns < -kLimit || t.base_ns > kLimit) return bad(fmt::format("rank {}: base time out of range", t.rank));
    }
  }
  if (stage == Stage::kSegment || stage == Stage::kClassify) {
    auto in_rank = [&](int rank, const EventRange& range) {
      const RankTable* t = r.FindRank(rank);
      return t && range.first <= range.last && range.last <= t->events.size();
    };
    for (size_t i = 0; i < r.steps.size(); ++i) {
      const Step& st = r.steps[i];
      if (!in_rank(st.rank, st.events)) return bad(fmt::format("step {}: events outside rank {}", i, st.rank));
      for (uint32_t l : st.layers)
        if (l >= r.layers.size()) return bad(fmt::format("step {}: layer {}", i, l));
    }
    for (size_t i = 0; i < r.layers.size(); ++i)
      if (!in_rank(r.layers[i].rank, r.layers[i].events)) return bad(fmt::format("layer {}: events outside its rank", i));
    for (size_t i = 0; i < r.layers.size(); ++i) {
      const IndexRange& b = r.layers[i].blocks;
      if (b.first > b.last || b.last > r.blocks.size()) return bad(fmt::format("layer {}: blocks {}..{}", i, b.first, b.last));
    }
    for (size_t i = 0; i < r.blocks.size(); ++i)
      if (!in_rank(r.blocks[i].rank, r.blocks[i].events)) return bad(fmt::format("block {}: events outside its rank", i));
    for (size_t i = 0; i < r.layers.size(); ++i)
      if (r.layers[i].layer_class != kNone32 && r.layers[i].layer_class >= r.layer_classes.size())
        return bad(fmt::format("layer {}: class {}", i, r.layers[i].layer_class));
    for (size_t i = 0; i < r.blocks.size(); ++i)
      if (r.blocks[i].block_class != kNone32 && r.blocks[i].block_class >= r.block_classes.size())
        return bad(fmt::format("block {}: class {}", i, r.blocks[i].block_class));
  }
  return Status::Ok();
}

}  // namespace

void StageChecksum::Update(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  while (n && npending_ < 8 && npending_ > 0) {
    pending_[npending_++] = *p++;
    --n;
  }
  if (npending_ == 8) {
    uint64_t w;
    std::memcpy(&w, pending_, 8);
    h_ = (h_ ^ w) * kFnvPrime;
    npending_ = 0;
  }
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h_ = (h_ ^ w) * kFnvPrime;
  }
  while (n--) pending_[npending_++] = *p++;
}

uint64_t StageChecksum::Final() const {
  uint64_t h = h_;
  for (size_t i = 0; i < npending_; ++i) h = (h ^ pending_[i]) * kFnvPrime;
  return h;
}

std::filesystem::path StageFilePath(const std::filesystem::path& dir, Stage stage) {
  return dir / (std::string(StageName(stage)) + ".bin");
}

namespace {

Status WriteStage(const std::filesystem::path& dir, Stage stage, AnalysisResult& result,
                  std::vector<RankTable>& ranks) {
  return WriteStreamAtomic(StageFilePath(dir, stage), [&](std::ostream& os) {
    Writer w;
    w.os = &os;
    w.Raw(kMagic, sizeof kMagic - 1);
    uint32_t version = kStageFileVersion, schema = kModelSchemaVersion;
    uint8_t s = static_cast<uint8_t>(stage);
    IoAll(w, version, schema, s);
    StagePart(w, stage, result, ranks);  // the writer only reads
    w.Flush();
    uint64_t sum = w.hash.Final();
    os.write(reinterpret_cast<const char*>(&sum), sizeof sum);
    return Status::Ok();
  });
}

}  // namespace

Status SaveStage(const std::filesystem::path& dir, Stage stage, const AnalysisResult& result) {
  auto& r = const_cast<AnalysisResult&>(result);  // Io code is shared with reading: the writer only reads
  return WriteStage(dir, stage, r, r.ranks);
}

std::future<Status> SaveNormalizeStageAsync(const std::filesystem::path& dir, const AnalysisResult& result) {
  auto snapshot = std::make_shared<AnalysisResult>();
  snapshot->strings = result.strings;
  snapshot->issues = result.issues;
  snapshot->timings = result.timings;
  snapshot->identity = result.identity;
  auto* ranks = const_cast<std::vector<RankTable>*>(&result.ranks);
  return std::async(std::launch::async,
                    [dir, snapshot, ranks] { return WriteStage(dir, Stage::kNormalize, *snapshot, *ranks); });
}

Status LoadStage(const std::filesystem::path& dir, Stage stage, AnalysisResult& result) {
  std::filesystem::path path = StageFilePath(dir, stage);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return NotFoundError("{}: stage file not found; run the '{}' stage first with --keep-stages (omit --from-stage, or use --to-stage {})",
                         path.string(), StageName(stage), StageName(stage));
  OPTRACE_ASSIGN_OR_RETURN(std::string file, ReadFileToString(path));
  uint64_t sum = 0;
  if (file.size() < sizeof sum + sizeof kMagic - 1 ||
      (std::memcpy(&sum, file.data() + file.size() - sizeof sum, sizeof sum),
       sum != StageChecksum::Of(std::string_view(file).substr(0, file.size() - sizeof sum)))) {
    return BadInputError("{}: truncated or corrupt (checksum mismatch); re-run the '{}' stage",
                         path.string(), StageName(stage));
  }
  std::string_view bytes = std::string_view(file).substr(0, file.size() - sizeof sum);
  Reader r{bytes};
  char magic[sizeof kMagic - 1];
  r.Raw(magic, sizeof magic);
  uint32_t version = 0, schema = 0;
  uint8_t s = 255;
  IoAll(r, version, schema, s);
  if (!r.ok || std::memcmp(magic, kMagic, sizeof magic) != 0)
    return BadInputError("{}: not an optrace stage file; re-run the '{}' stage", path.string(), StageName(stage));
  if (version != kStageFileVersion || schema != kModelSchemaVersion || s != static_cast<uint8_t>(stage))
    return BadInputError("{}: stage file version {} schema {} stage {} does not match this optrace ({} {} {}); re-run the "
                         "'{}' stage",
                         path.string(), version, schema, int(s), kStageFileVersion, kModelSchemaVersion,
                         int(static_cast<uint8_t>(stage)), StageName(stage));
  StagePart(r, stage, result, result.ranks);
  if (!r.ok || r.pos != bytes.size())
    return BadInputError("{}: truncated or corrupt at byte {}; re-run the '{}' stage", path.string(), r.pos,
                         StageName(stage));
  return CheckDecoded(stage, result, path.string());
}

}  // namespace optrace::analyze
