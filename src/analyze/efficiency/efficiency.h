// Efficiency: how far each operator, step class and rank is from the hardware. Shape-derived FLOPs
// and bytes (op_cost.h) against the device's peaks (hardware.h): achieved TFLOPS and GB/s, MFU,
// a roofline position and the time to reclaim at the sustained roofline; plus the model
// fingerprint the shapes reveal (fingerprint.h).
//
//   EfficiencyOptions opt;  opt.rules = &rules;  opt.hardware = hw;   // hw optional
//   Efficiency eff = ComputeEfficiency(result, opt);
//   for (const OperatorEfficiency& o : eff.operators) ... o.reclaim_us ...
//   const OpCost* c = eff.CostOf(event);   // nullptr when the call is not modelled
//
// MFU = modelled FLOPs in the steps / (step wall time x the theoretical cube peak of the dtype that
// carries most FLOPs). The reclaim ranking uses the sustained roofline: theoretical peak x the
// sustained factor of efficiency_rules.json (seed 002's measurements: dense fp16/bf16 matmul 0.95,
// int8 quantized matmul 0.65). Operators that cannot be modelled are listed, never estimated.
// Computed by the report stage from the analysis model (like the KPIs), so a rerun with another
// --hardware-model only needs --from-stage report.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyze/efficiency/fingerprint.h"
#include "analyze/cost/hardware.h"
#include "analyze/model/model.h"
#include "analyze/cost/op_cost.h"
#include "analyze/rules/rules.h"

namespace optrace::analyze {

struct EfficiencyOptions {
  const Rules* rules = nullptr;                // nullptr: the built-in rules
  std::optional<HardwarePeaks> hardware;       // none: FLOPs and bytes only, no MFU / roofline
  std::string hardware_note;                   // why there is none (shown in the report)
  std::optional<ModelConfig> model_config;     // --model-config: cross-check of the fingerprint
};

// One operator shape instance, (name, type, shapes, dtypes), merged over ranks.
struct OperatorEfficiency {
  uint32_t name = 0, type = 0, input_shapes = 0, output_shapes = 0, input_dtypes = 0;
  OpCost cost;  // per call
  int rank_count = 0;
  uint64_t calls = 0;
  double total_us = 0;
  double achieved_tflops = NAN;  // FLOPs of all calls / their time
  double achieved_gbps = NAN;
  double peak_tflops = NAN;      // theoretical, for cost.compute_dtype (vector family: the vector peak)
  double peak_share = NAN;       // achieved / theoretical peak
  double sustained_factor = NAN;
  std::string bound;             // compute / memory: which roof the sustained roofline puts it under
  double attainable_us = NAN;    // per call at the sustained roofline
  double reclaim_us = NAN;       // total - calls x attainable (>= 0)
};

// A (name, type) operator class over all its shapes: one point of the roofline plot.
struct OperatorClassEfficiency {
  uint32_t name = 0, type = 0;
  std::string family, compute_dtype;
  std::string peak_key;  // PeakKeyOf its shapes' cost
  uint64_t calls = 0;
  double total_us = 0, flops = 0, bytes = 0;
  double achieved_tflops = NAN, intensity = NAN, peak_share = NAN, reclaim_us = NAN;
  std::string bound;
};

// Op types with compute time that no model covers.
struct UnmodelledType {
  uint32_t type = 0;
  uint64_t calls = 0;
  double total_us = 0;
  std::string reason;  // the first call's reason
};

// MFU of a rank or a step class.
struct MfuRow {
  std::string scope;   // "rank" or "step_class"
  std::string key;     // "3" or "S1"
  int steps = 0;
  double wall_ms = 0;          // summed step wall time
  double flops = 0;            // modelled FLOPs in those steps
  double cube_flops = 0;       // of which matmul / attention (cube) families
  double achieved_tflops = NAN;  // flops / wall
  double mfu = NAN;            // achieved / peak (theoretical)
  double modelled_compute_share = NAN;  // modelled compute event time / all compute event time
};

struct Efficiency {
  std::optional<HardwarePeaks> hardware;
  std::string hardware_note;
  std::string mfu_dtype;        // the dtype class whose peak is the MFU denominator
  double mfu_peak_tflops = NAN;
  std::map<std::string, double> sustained_factors;  // as used ("matmul:bf16" -> 0.95)
  double bandwidth_sustained_factor = NAN;
  std::vector<OpCost> costs;    // distinct shape instances
  std::vector<OperatorEfficiency> operators;     // modelled, by reclaim desc (total desc without hardware)
  std::vector<OperatorClassEfficiency> classes;  // by total desc
  std::vector<UnmodelledType> unmodelled;        // by total desc
  std::vector<MfuRow> mfu;                       // ranks, then step classes
  uint64_t modelled_calls = 0, compute_calls = 0;
  double modelled_us = 0, compute_us = 0;        // compute = AI core / vector / mix event time
  ModelFingerprint fingerprint;

  // The cost of an event's call, nullptr when not modelled (or the event is communication).
  const OpCost* CostOf(const Event& e) const;

  // (type, input shapes, output shapes, input dtypes) string ids -> index into costs.
  struct Key {
    uint32_t type, in_shapes, out_shapes, in_dtypes;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.type;
      for (uint32_t v : {k.in_shapes, k.out_shapes, k.in_dtypes}) h = h * 0x9e3779b97f4a7c15ull + v;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> cost_index;
  std::vector<Key> cost_keys;         // parallel to costs: the key of each
  std::vector<uint64_t> cost_calls;   // parallel to costs: compute calls with that key
};

Efficiency ComputeEfficiency(const AnalysisResult& result, const EfficiencyOptions& options);

// The HardwarePeaks::PeakTflops key of a cost: its dtype class for cube families ("bf16"),
// "vector:fp16" / "vector:bf16" / "vector:fp32" for vector ops (other dtypes run at fp32 rate).
std::string PeakKeyOf(const OpCost& cost);

// The fingerprint of the model behind `result` (fingerprint.h), from the shapes of its calls
// (`eff.costs`, already computed) and the feature rules; `config` adds the cross-check column.
ModelFingerprint InferFingerprint(const AnalysisResult& result, const Efficiency& eff, const Rules& rules,
                                  const std::optional<ModelConfig>& config);

}  // namespace optrace::analyze
