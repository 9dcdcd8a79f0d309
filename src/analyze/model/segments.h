// The segment and classify stages' part of the model: steps, layers, blocks and their shape classes.
#pragma once

#include "analyze/model/events.h"

namespace optrace::analyze {

enum class BlockKind : uint8_t { kAttention, kFfn, kMoe, kCommunication, kAicpu, kOther };
std::string_view BlockKindName(BlockKind k);

// Half-open event index range [first, last) into RankTable::events.
struct EventRange {
  uint32_t first = 0, last = 0;
  uint32_t size() const { return last - first; }
  bool empty() const { return first >= last; }
};

// Consecutive indexes [first, last) into a table: a layer's blocks. Iterates like a list of
// indexes at 8 bytes, where a std::vector<uint32_t> per layer cost 56 and an allocation.
struct IndexRange {
  uint32_t first = 0, last = 0;
  uint32_t size() const { return last > first ? last - first : 0; }
  bool empty() const { return first >= last; }
  uint32_t operator[](size_t k) const { return first + static_cast<uint32_t>(k); }
  struct Iterator {
    uint32_t value;
    uint32_t operator*() const { return value; }
    Iterator& operator++() {
      ++value;
      return *this;
    }
    bool operator==(const Iterator&) const = default;
  };
  Iterator begin() const { return {first}; }
  Iterator end() const { return {first + size()}; }
};

struct StepAnatomy {
  int64_t wall_ns = 0;    // first event start to last event end
  int64_t busy_ns = 0;    // union of event intervals
  int64_t bubble_ns = 0;  // wall - busy
  int64_t head_ns = 0;    // step start to first layer start (0 without layers)
  int64_t main_ns = 0;    // first layer start to last layer end (wall without layers)
  int64_t tail_ns = 0;    // last layer end to step end
  int64_t max_gap_ns = 0;         // largest internal idle gap
  int64_t max_gap_start_ns = -1;  // where it starts (rank-relative)
  uint32_t max_gap_next_event = kNone32;  // index of the event that ends the largest gap
  int bubble_gap_count = 0;       // internal gaps at/above the bubble threshold
  int64_t bubble_gap_ns = 0;      // their total
  bool has_bubble = false;        // bubble_gap_count > 0
};

struct Step {
  int rank = -1;
  int64_t step_id = -1;  // profiler step number; ordinal when the source had none
  std::string step_source;  // "Step Id", "STEP_TIME", "trace_view.json", "step_trace_time.csv", "whole_capture"
  EventRange events;
  int64_t start_ns = 0, end_ns = 0;  // rank-relative, from its events
  bool complete = true;              // false for a capture-edge fragment
  bool partial_capture_boundary = false;
  StepAnatomy anatomy;
  int64_t prelaunch_gap_ns = -1;  // idle before it since the previous step on the rank; -1 unknown
  int64_t tail_gap_ns = -1;       // idle after it until the next step; -1 unknown
  // The profiler's own step (issue 52): the host step window (db STEP_TIME, trace_view ProfilerStep)
  // holds host time before the first device task ("Preparing") and after the last one; the device
  // wall above does not. Without a window, step_trace_time's Preparing + the device wall. -1 unknown.
  int64_t profiler_step_ns = -1;
  int64_t host_prepare_ns = -1;  // host step start to the first device task
  int64_t host_tail_ns = -1;     // last device task end to the host step end (window only)
  std::string profiler_step_source;  // "STEP_TIME", "trace_view.json", "step_trace_time.csv", ""
  int64_t comm_ns = 0;            // union of communication (and mix_comm_aiv) event time
  int64_t compute_ns = 0;         // union of the other events
  // Communication hidden under compute: |comm ∩ compute| = comm + compute - busy.
  int64_t comm_overlap_ns() const { return std::max<int64_t>(0, comm_ns + compute_ns - anatomy.busy_ns); }
  int64_t exposed_comm_ns() const { return comm_ns - comm_overlap_ns(); }
  std::vector<uint32_t> layers;   // indexes into AnalysisResult::layers
  std::string layer_anchor;       // the anchor rule that cut this step ("" when none matched)
  std::string step_class;         // "S1", ...
  std::vector<std::string> anomaly_tags;  // PRELAUNCH_GAP_HEAVY, TAIL_GAP_HEAVY, PARTIAL_CAPTURE_BOUNDARY, BUBBLE
};

// Blocks and layers are made by the hundred thousand: members are ordered so that no padding
// sits between them (40 and 88 bytes; in declaration order they took 48 and 96).
struct Block {
  int rank = -1;
  uint32_t layer = 0;  // index into AnalysisResult::layers
  EventRange events;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t block_class = kNone32;  // index into AnalysisResult::block_classes (id "B1", ...)
  BlockKind kind = BlockKind::kOther;
};
static_assert(sizeof(Block) == 40);

struct Layer {
  int rank = -1;
  uint32_t step = 0;  // index into AnalysisResult::steps
  int index_in_step = 0;
  uint32_t anchor_name = 0;  // interned name of the anchor operator
  uint32_t layer_class = kNone32;  // index into AnalysisResult::layer_classes (id "L1", ...)
  bool companion_layer = false;  // no attention block
  // Wall above layer_outlier_ratio x the rank's median layer: it absorbed work that is not a layer
  // (output head, loss, a collective); kept out of layer statistics.
  bool outlier = false;
  EventRange events;
  IndexRange blocks;             // indexes into AnalysisResult::blocks (a layer's are consecutive)
  int64_t start_ns = 0, end_ns = 0;
  std::string absorbed;          // its longest operators: "hcom_allReduce_ 121.0 ms, ..."
};
static_assert(sizeof(Layer) == 56 + sizeof(std::string));

// A class of steps / layers / blocks with exactly the same (name, shape) sequence.
struct ShapeClass {
  std::string id;         // "S1", "L3", "B2"
  std::string signature;  // hex digest of the sequence, or "noshape:<member>" when shapes are missing
  bool has_shapes = true;
  std::vector<uint32_t> members;  // indexes into steps / layers / blocks
};

}  // namespace optrace::analyze
