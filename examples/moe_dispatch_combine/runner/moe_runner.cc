// Host side of the moe_dispatch_combine example: inputs, tiling, emulated launch, reference
// check, and the conversion of the emulator's log into RecordedEvent.
#include "moe_runner.h"

#include <cmath>

#include "op_kernel/moe_dispatch_combine_base.h"
#include "op_kernel/moe_dispatch_combine_tiling.h"
#include "optrace_emu/runtime.h"

extern "C" void moe_dispatch_combine(GM_ADDR x, GM_ADDR expertIds, GM_ADDR weight, GM_ADDR windows, GM_ADDR y,
                                     GM_ADDR profilingData, GM_ADDR workspace, GM_ADDR tiling);

namespace optrace::examples {
namespace {

constexpr uint32_t kHidden = 16;
constexpr uint32_t kSlotWords = PROF_SIZE_PER_CORE;  // as the kernel was built
constexpr float kDequantScale = 0.125f;

// Deterministic inputs: a small linear congruential generator per rank.
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed * 2654435761u + 1u) {}
  uint32_t Next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 8;
  }
  float Uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(Next() % 10000) / 10000.0f; }

 private:
  uint32_t state_;
};

struct RankData {
  std::vector<float> x, weight, y;
  std::vector<int32_t> expert_ids;
  std::vector<uint32_t> workspace, tiling;
  std::vector<int64_t> profiling;
};

Status CheckOptions(const MoeRunOptions& o) {
  if (o.ranks < 1 || o.ranks > 16) return UsageError("moe example: ranks {} must be in 1..16", o.ranks);
  if (o.block_dim < 2 || o.block_dim > 32) {
    return UsageError("moe example: block_dim {} must be in 2..32 (send, receive and compute AIV roles)",
                      o.block_dim);
  }
  if (o.expert_groups < 1 || o.expert_groups > 64) {
    return UsageError("moe example: expert_groups {} must be in 1..64", o.expert_groups);
  }
  if (o.tokens < 1 || o.tokens > 4096) return UsageError("moe example: tokens {} must be in 1..4096", o.tokens);
  return Status::Ok();
}

// y of one token as the kernel computes it, on the host.
std::vector<float> ReferenceToken(const std::vector<RankData>& ranks, const float* x, int32_t expert,
                                  uint32_t groups) {
  const auto& w = ranks[static_cast<size_t>(expert) / groups].weight;
  const size_t g = static_cast<size_t>(expert) % groups;
  const float* up = &w[(g * 2 + 0) * kHidden * kHidden];
  const float* down = &w[(g * 2 + 1) * kHidden * kHidden];
  float mid[kHidden];
  for (uint32_t j = 0; j < kHidden; ++j) {
    float acc = 0.0f;
    for (uint32_t k = 0; k < kHidden; ++k) acc += x[k] * up[k * kHidden + j];
    mid[j] = acc > 0.0f ? acc : 0.0f;
  }
  float abs_max = 0.0f;
  for (uint32_t k = 0; k < kHidden; ++k) abs_max = std::max(abs_max, std::fabs(x[k]));
  const float route = 1.0f / (1.0f + abs_max);
  std::vector<float> y(kHidden);
  for (uint32_t j = 0; j < kHidden; ++j) {
    float acc = 0.0f;
    for (uint32_t k = 0; k < kHidden; ++k) acc += mid[k] * down[k * kHidden + j];
    y[j] = route * (acc * kDequantScale) + 0.5f * x[j];
  }
  return y;
}

Status CheckOutputs(const std::vector<RankData>& ranks, uint32_t tokens, uint32_t groups) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (uint32_t t = 0; t < tokens; ++t) {
      const std::vector<float> want =
          ReferenceToken(ranks, &ranks[r].x[t * kHidden], ranks[r].expert_ids[t], groups);
      for (uint32_t h = 0; h < kHidden; ++h) {
        const float got = ranks[r].y[t * kHidden + h];
        if (std::fabs(got - want[h]) > 1e-4f * (1.0f + std::fabs(want[h]))) {
          return InternalError("moe example: rank {} token {} y[{}] = {} but the host reference gives {}", r, t, h,
                               got, want[h]);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<MoeRunResult> RunMoeExample(const MoeRunOptions& options) {
  OPTRACE_RETURN_IF_ERROR(CheckOptions(options));
  const auto ranks = static_cast<uint32_t>(options.ranks);
  const auto block_dim = static_cast<uint32_t>(options.block_dim);
  const auto groups = static_cast<uint32_t>(options.expert_groups);
  const auto tokens = static_cast<uint32_t>(options.tokens);
  const MoeDispatchCombineImpl::WindowLayout window(ranks, tokens, kHidden);
  const MoeDispatchCombineImpl::WorkspaceLayout workspace(ranks, tokens, kHidden, groups);
  const uint32_t experts = ranks * groups;
  const size_t slots = static_cast<size_t>(block_dim) * 3;

  std::vector<RankData> data(ranks);
  std::vector<uint32_t> windows(static_cast<size_t>(window.words) * ranks, 0);
  for (uint32_t r = 0; r < ranks; ++r) {
    RankData& d = data[r];
    Lcg rng(r + 1);
    d.x.resize(static_cast<size_t>(tokens) * kHidden);
    for (float& v : d.x) v = rng.Uniform(-1.0f, 1.0f);
    d.expert_ids.resize(tokens);
    for (int32_t& e : d.expert_ids) e = static_cast<int32_t>(rng.Next() % experts);
    d.weight.resize(static_cast<size_t>(groups) * 2 * kHidden * kHidden);
    for (float& v : d.weight) v = rng.Uniform(-0.3f, 0.3f);
    d.y.assign(static_cast<size_t>(tokens) * kHidden, 0.0f);
    d.workspace.assign(workspace.words, 0);
    d.tiling.assign(MoeDispatchCombineImpl::kTilingFieldCount, 0);
    d.tiling[MoeDispatchCombineImpl::kTilingRankId] = r;
    d.tiling[MoeDispatchCombineImpl::kTilingRankNum] = ranks;
    d.tiling[MoeDispatchCombineImpl::kTilingTokens] = tokens;
    d.tiling[MoeDispatchCombineImpl::kTilingHidden] = kHidden;
    d.tiling[MoeDispatchCombineImpl::kTilingExpertGroups] = groups;
    d.tiling[MoeDispatchCombineImpl::kTilingWindowWords] = window.words;
    d.profiling.assign(slots * kSlotWords, 0);
  }

  emu::LaunchOptions launch;
  launch.ranks = options.ranks;
  launch.block_dim = block_dim;
  auto as_gm = [](auto& v) { return reinterpret_cast<GM_ADDR>(v.data()); };
  auto kernel = [&](int rank) {
    RankData& d = data[static_cast<size_t>(rank)];
    moe_dispatch_combine(as_gm(d.x), as_gm(d.expert_ids), as_gm(d.weight), as_gm(windows), as_gm(d.y),
                         as_gm(d.profiling), as_gm(d.workspace), as_gm(d.tiling));
  };
  OPTRACE_ASSIGN_OR_RETURN(emu::LaunchResult launched, emu::Launch(launch, kernel));
  OPTRACE_RETURN_IF_ERROR(CheckOutputs(data, tokens, groups));

  MoeRunResult result;
  for (uint32_t r = 0; r < ranks; ++r) {
    result.rank_buffers.push_back(std::move(data[r].profiling));
    for (const emu::TraceRecord& rec : launched.ranks[r].records) {
      if (!rec.stored) continue;
      result.recorded.push_back(RecordedEvent{
          static_cast<int>(r), rec.type == emu::CoreType::kAic ? format::CoreKind::kAic : format::CoreKind::kAiv,
          rec.core_index, rec.sub_block, rec.slot, rec.point_id, rec.payload, rec.timestamp});
    }
  }
  return result;
}

}  // namespace optrace::examples
