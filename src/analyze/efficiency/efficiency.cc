#include "analyze/efficiency/efficiency.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace optrace::analyze {
namespace {

bool IsCubeFamily(const std::string& family) { return family != "vector" && !family.empty(); }

std::string SustainedKey(const OpCost& c) {
  return (IsCubeFamily(c.family) ? "cube:" : "") + PeakKeyOf(c);
}

// An operator shape instance: its name and its cost (which stands for type, shapes and dtypes).
uint64_t InstanceKey(uint32_t name, uint32_t cost) { return uint64_t(name) << 32 | cost; }

struct InstanceAcc {
  uint64_t calls = 0;
  double total_us = 0;
  std::set<int> ranks;
};

}  // namespace

std::string PeakKeyOf(const OpCost& c) {
  if (!IsCubeFamily(c.family)) {
    std::string d = c.compute_dtype == "bf16" || c.compute_dtype == "fp16" ? c.compute_dtype : "fp32";
    return "vector:" + d;
  }
  return c.compute_dtype;
}

const OpCost* Efficiency::CostOf(const Event& e) const {
  if (e.op_type == OpType::kCommunication) return nullptr;
  auto it = cost_index.find({e.type, e.input_shapes, e.output_shapes, e.input_dtypes});
  if (it == cost_index.end() || !costs[it->second].modelled) return nullptr;
  return &costs[it->second];
}

Efficiency ComputeEfficiency(const AnalysisResult& r, const EfficiencyOptions& opt) {
  Rules builtin;
  const Rules* rules = opt.rules;
  if (!rules) {
    auto loaded = LoadRules("");
    if (loaded.ok()) builtin = std::move(loaded).value();
    rules = &builtin;
  }
  const EfficiencyRules& er = rules->efficiency;
  Efficiency eff;
  eff.hardware = opt.hardware;
  eff.hardware_note = opt.hardware_note;
  eff.bandwidth_sustained_factor = er.bandwidth_sustained;

  std::unordered_map<uint64_t, InstanceAcc> instances;
  std::vector<Efficiency::Key> cost_keys;  // the key of each cost  // by InstanceKey; read back in key order
  std::map<uint32_t, UnmodelledType> unmodelled;
  // Per step: modelled FLOPs (all / cube) and compute time (all / modelled).
  struct StepAcc {
    double flops = 0, cube_flops = 0, compute_us = 0, modelled_us = 0;
  };
  std::vector<StepAcc> step_acc(r.steps.size());
  std::map<std::string, double> cube_flops_by_dtype;

  // Every compute call of every rank: its cost, the operator tables, the not-modelled list and,
  // for the calls inside a step, the step's sums (a rank's steps hold disjoint event ranges in
  // time order, walked alongside the events).
  std::vector<std::vector<size_t>> steps_of_rank(r.ranks.size());
  for (size_t si = 0; si < r.steps.size(); ++si)
    if (const RankTable* t = r.FindRank(r.steps[si].rank)) steps_of_rank[size_t(t - r.ranks.data())].push_back(si);
  for (size_t ri = 0; ri < r.ranks.size(); ++ri) {
    const RankTable& table = r.ranks[ri];
    std::vector<size_t>& steps = steps_of_rank[ri];
    std::sort(steps.begin(), steps.end(),
              [&](size_t a, size_t b) { return r.steps[a].events.first < r.steps[b].events.first; });
    size_t next_step = 0;
    for (size_t i = 0; i < table.events.size(); ++i) {
      while (next_step < steps.size() && r.steps[steps[next_step]].events.last <= i) ++next_step;
      StepAcc* in_step = next_step < steps.size() && r.steps[steps[next_step]].events.first <= i
                             ? &step_acc[steps[next_step]]
                             : nullptr;
      const Event& e = table.events[i];
      if (e.op_type == OpType::kCommunication) continue;
      double us = double(e.dur_ns) / 1e3;
      Efficiency::Key key{e.type, e.input_shapes, e.output_shapes, e.input_dtypes};
      auto [it, fresh] = eff.cost_index.try_emplace(key, uint32_t(eff.costs.size()));
      if (fresh) {
        eff.cost_keys.push_back(key);
        eff.cost_calls.push_back(0);
        eff.costs.push_back(ModelOpCost(er.cost, r.Str(e.type), r.Str(e.input_shapes), r.Str(e.output_shapes),
                                        r.Str(e.input_dtypes)));
      }
      ++eff.cost_calls[it->second];
      const OpCost& c = eff.costs[it->second];
      ++eff.compute_calls;
      eff.compute_us += us;
      if (in_step) in_step->compute_us += us;
      if (!c.modelled) {
        UnmodelledType& u = unmodelled[e.type];
        u.type = e.type;
        ++u.calls;
        u.total_us += us;
        if (u.reason.empty()) u.reason = c.reason;
        continue;
      }
      ++eff.modelled_calls;
      eff.modelled_us += us;
      if (IsCubeFamily(c.family)) cube_flops_by_dtype[c.compute_dtype] += c.flops;
      if (in_step) {
        in_step->modelled_us += us;
        in_step->flops += c.flops;
        if (IsCubeFamily(c.family)) in_step->cube_flops += c.flops;
      }
      InstanceAcc& acc = instances[InstanceKey(e.name, it->second)];
      ++acc.calls;
      acc.total_us += us;
      acc.ranks.insert(table.rank);
    }
  }

  // MFU denominator: the cube peak of the dtype that carries most modelled FLOPs.
  double best = -1;
  for (const auto& [dtype, flops] : cube_flops_by_dtype)
    if (flops > best) best = flops, eff.mfu_dtype = dtype;
  if (eff.hardware && !eff.mfu_dtype.empty()) eff.mfu_peak_tflops = eff.hardware->PeakTflops(eff.mfu_dtype);

  const HardwarePeaks* hw = eff.hardware ? &*eff.hardware : nullptr;
  const double bw = hw ? hw->hbm_bandwidth_gbps * er.bandwidth_sustained : NAN;
  std::map<std::pair<uint32_t, uint32_t>, OperatorClassEfficiency> classes;
  std::vector<uint64_t> keys;
  keys.reserve(instances.size());
  for (const auto& [key, acc] : instances) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (uint64_t key : keys) {
    const InstanceAcc& acc = instances[key];
    const uint32_t name = uint32_t(key >> 32), cost = uint32_t(key);
    const Efficiency::Key& shape = eff.cost_keys[cost];
    OperatorEfficiency o;
    o.name = name, o.type = shape.type, o.input_shapes = shape.in_shapes;
    o.output_shapes = shape.out_shapes, o.input_dtypes = shape.in_dtypes;
    o.cost = eff.costs[cost];
    o.rank_count = int(acc.ranks.size());
    o.calls = acc.calls;
    o.total_us = acc.total_us;
    double seconds = acc.total_us / 1e6;
    if (seconds > 0) {
      o.achieved_tflops = o.cost.flops * double(o.calls) / seconds / 1e12;
      o.achieved_gbps = o.cost.bytes * double(o.calls) / seconds / 1e9;
    }
    if (hw) {
      o.peak_tflops = hw->PeakTflops(PeakKeyOf(o.cost));
      if (o.peak_tflops > 0) o.peak_share = o.achieved_tflops / o.peak_tflops;
      auto sf = er.sustained.find(SustainedKey(o.cost));
      o.sustained_factor = sf == er.sustained.end() ? er.sustained_default : sf->second;
      // The sustained roofline: the slower of the compute roof and the memory roof. Without a memory
      // roof a cube op keeps its compute roof (a lower bound on its time, said in `bound`); a vector
      // op, bytes-bound by nature, gets no roofline at all.
      double t_compute = o.peak_tflops > 0 ? o.cost.flops / (o.peak_tflops * o.sustained_factor * 1e12) * 1e6 : NAN;
      double t_memory = bw > 0 ? o.cost.bytes / (bw * 1e9) * 1e6 : NAN;
      if (!IsCubeFamily(o.cost.family) && std::isnan(t_memory)) t_compute = NAN;
      if (!std::isnan(t_compute) || !std::isnan(t_memory)) {
        bool memory = std::isnan(t_compute) || (!std::isnan(t_memory) && t_memory > t_compute);
        o.bound = memory ? "memory" : std::isnan(t_memory) ? "compute (no memory roof)" : "compute";
        o.attainable_us = memory ? t_memory : t_compute;
        o.reclaim_us = std::max(0.0, o.total_us - double(o.calls) * o.attainable_us);
      }
    }
    OperatorClassEfficiency& c = classes[{o.name, o.type}];
    c.name = o.name, c.type = o.type;
    c.family = o.cost.family;
    if (c.compute_dtype.empty()) c.compute_dtype = o.cost.compute_dtype, c.peak_key = PeakKeyOf(o.cost);
    c.calls += o.calls;
    c.total_us += o.total_us;
    c.flops += o.cost.flops * double(o.calls);
    c.bytes += o.cost.bytes * double(o.calls);
    if (!std::isnan(o.reclaim_us)) c.reclaim_us = (std::isnan(c.reclaim_us) ? 0 : c.reclaim_us) + o.reclaim_us;
    eff.operators.push_back(std::move(o));
  }
  for (auto& [key, c] : classes) {
    if (c.total_us > 0) c.achieved_tflops = c.flops / (c.total_us / 1e6) / 1e12;
    if (c.bytes > 0) c.intensity = c.flops / c.bytes;
    if (hw) {
      double peak = hw->PeakTflops(c.peak_key);
      if (peak > 0) c.peak_share = c.achieved_tflops / peak;
      double ridge = peak > 0 && hw->hbm_bandwidth_gbps > 0 ? peak * 1e12 / (hw->hbm_bandwidth_gbps * 1e9) : NAN;
      if (!std::isnan(ridge)) c.bound = c.intensity >= ridge ? "compute" : "memory";
    }
    eff.classes.push_back(c);
  }
  std::sort(eff.classes.begin(), eff.classes.end(), [](const auto& a, const auto& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : std::tie(a.name, a.type) < std::tie(b.name, b.type);
  });
  std::stable_sort(eff.operators.begin(), eff.operators.end(), [](const auto& a, const auto& b) {
    double ra = std::isnan(a.reclaim_us) ? -1 : a.reclaim_us, rb = std::isnan(b.reclaim_us) ? -1 : b.reclaim_us;
    if (ra != rb) return ra > rb;
    return a.total_us > b.total_us;
  });
  for (auto& [type, u] : unmodelled) eff.unmodelled.push_back(u);
  std::sort(eff.unmodelled.begin(), eff.unmodelled.end(), [](const auto& a, const auto& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : a.type < b.type;
  });
  for (const auto& [key, f] : er.sustained) eff.sustained_factors[key] = f;

  // MFU per rank, then per step class: complete steps (all steps when a rank has none complete).
  auto mfu_row = [&](std::string scope, std::string key, const std::vector<size_t>& members) {
    MfuRow m;
    m.scope = std::move(scope), m.key = std::move(key);
    double compute = 0, modelled = 0;
    for (size_t si : members) {
      const Step& s = r.steps[si];
      ++m.steps;
      m.wall_ms += double(s.anatomy.wall_ns) / 1e6;
      m.flops += step_acc[si].flops;
      m.cube_flops += step_acc[si].cube_flops;
      compute += step_acc[si].compute_us;
      modelled += step_acc[si].modelled_us;
    }
    if (m.wall_ms > 0 && modelled > 0) m.achieved_tflops = m.cube_flops / (m.wall_ms / 1e3) / 1e12;
    if (eff.mfu_peak_tflops > 0) m.mfu = m.achieved_tflops / eff.mfu_peak_tflops;
    if (compute > 0) m.modelled_compute_share = modelled / compute;
    eff.mfu.push_back(std::move(m));
  };
  std::map<int, std::vector<size_t>> by_rank, by_rank_all;
  std::map<std::string, std::vector<size_t>> by_class;
  for (size_t si = 0; si < r.steps.size(); ++si) {
    const Step& s = r.steps[si];
    by_rank_all[s.rank].push_back(si);
    if (!s.complete) continue;
    by_rank[s.rank].push_back(si);
    if (!s.step_class.empty()) by_class[s.step_class].push_back(si);
  }
  for (const auto& [rank, all] : by_rank_all) {
    auto it = by_rank.find(rank);
    mfu_row("rank", std::to_string(rank), it == by_rank.end() ? all : it->second);
  }
  for (const ShapeClass& sc : r.step_classes) {
    auto it = by_class.find(sc.id);
    if (it != by_class.end()) mfu_row("step_class", sc.id, it->second);
  }
  eff.fingerprint = InferFingerprint(r, eff, *rules, opt.model_config);
  return eff;
}

}  // namespace optrace::analyze
