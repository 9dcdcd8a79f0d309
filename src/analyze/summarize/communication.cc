#include "analyze/summarize/communication.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analyze/read/normalize.h"

namespace optrace::analyze {
namespace {

// NaN-aware sum: the first value replaces NaN.
void Add(double& sum, double v) {
  if (IsMissing(v)) return;
  sum = IsMissing(sum) ? v : sum + v;
}

// part / (part + transit). No transit time at all (some Level2 exports write 0 for every op
// while their bandwidth info has the time) is "not provided", not a ratio of 1.
double Ratio(double part, double transit) {
  if (IsMissing(part) || IsMissing(transit) || transit <= 0) return kMissing;
  return part / (part + transit);
}

}  // namespace

void SummarizeGroups(AnalysisResult& res) {
  Summaries& S = res.summaries;
  S.groups.clear();
  std::map<std::string, ParallelGroup> groups;  // by hash; the first rank's description
  for (const RankTable& t : res.ranks)
    for (const ParallelGroup& g : t.parallel_groups) groups.try_emplace(g.hash, g);
  for (RankSummary& r : S.ranks) {
    const RankTable* t = res.FindRank(r.rank);
    if (!t) continue;
    for (const ParallelGroup& g : t->parallel_groups)
      if (g.kind == "pp") {
        auto it = std::find(g.global_ranks.begin(), g.global_ranks.end(), r.rank);
        if (it != g.global_ranks.end()) r.pp_stage = static_cast<int>(it - g.global_ranks.begin());
      }
  }
  for (auto& [hash, g] : groups) S.groups.push_back(g);
}

void SummarizeCommunication(AnalysisResult& res, const Rules& rules) {
  SummarizeGroups(res);
  Summaries& S = res.summaries;
  S.comm_ranks.clear();
  S.comm_transports.clear();
  S.comm_links.clear();
  const double small_mb = rules.thresholds.small_packet_mb;
  for (const RankTable& t : res.ranks) {
    if (!t.comm_ops.empty()) {
      CommRankSummary r;
      r.rank = t.rank;
      std::map<std::string, CommTransportSummary> transports;
      std::map<std::string, double> bucket_ms, small_ms;
      for (const CommOp& op : t.comm_ops) {
        // The time split is over collectives: a p2p receive waits for the previous pipeline stage
        // by design, which is not a rank arriving late.
        if (!op.p2p) {
          ++r.ops;
          Add(r.elapse_ms, op.elapse_ms);
          Add(r.transit_ms, op.transit_ms);
          Add(r.wait_ms, op.wait_ms);
          Add(r.sync_ms, op.sync_ms);
          Add(r.idle_ms, op.idle_ms);
        }
        for (const CommBandwidth& b : op.bandwidth) {
          CommTransportSummary& x = transports[b.transport];
          x.rank = t.rank;
          x.transport = b.transport;
          ++x.ops;
          if (!IsMissing(b.size_mb)) x.size_mb += b.size_mb;
          if (!IsMissing(b.time_ms)) x.time_ms += b.time_ms;
          for (const CommPacketBucket& k : b.sizes) {
            bucket_ms[b.transport] += k.total_ms;
            if (k.packet_mb < small_mb) {
              small_ms[b.transport] += k.total_ms;
              x.small_packet_count += k.count;
            }
          }
        }
      }
      r.wait_ratio = Ratio(r.wait_ms, r.transit_ms);
      r.sync_ratio = Ratio(r.sync_ms, r.transit_ms);
      // Some exports (the Level2 ST sample) write a Transit Time of ~0 for every op while the
      // bandwidth info of the same ops holds the transfer time: the split is not provided then,
      // and a ratio of ~1 would read as "waits for a late rank".
      double moved_ms = 0;
      for (auto& [name, x] : transports) moved_ms = std::max(moved_ms, x.time_ms);
      if (moved_ms > 0 && !(r.transit_ms >= 0.01 * moved_ms)) {
        r.wait_ratio = r.sync_ratio = kMissing;
        AddIssue(res.issues, "comm_transit_not_provided", "info",
                 "communication.json gives (almost) no Transit Time while its bandwidth info holds the transfer time: "
                 "the wait / synchronization ratios of the rank are not provided",
                 fmt::format("rank {}: transit {:.3f} ms, bandwidth info {:.3f} ms", t.rank,
                             IsMissing(r.transit_ms) ? 0.0 : r.transit_ms, moved_ms));
      }
      S.comm_ranks.push_back(r);
      for (auto& [name, x] : transports) {
        x.bandwidth_gbps = x.time_ms > 0 ? x.size_mb / x.time_ms : kMissing;
        if (bucket_ms[name] > 0) x.small_packet_time_share = small_ms[name] / bucket_ms[name];
        S.comm_transports.push_back(x);
      }
    }
    // Links: op classes overlap (top / middle / bottom / total): only "-total" when present.
    bool totals = std::any_of(t.comm_matrix.begin(), t.comm_matrix.end(),
                              [](const CommMatrixLink& l) { return l.key.ends_with("-total"); });
    std::map<std::tuple<std::string, int, int, std::string>, CommLinkSummary> links;
    for (const CommMatrixLink& l : t.comm_matrix) {
      if (totals && !l.key.ends_with("-total")) continue;
      CommLinkSummary& x = links[{l.group, l.src, l.dst, l.transport}];
      x.group = l.group;
      x.src = l.src;
      x.dst = l.dst;
      x.transport = l.transport;
      x.reported_by = t.rank;
      ++x.entries;
      if (!IsMissing(l.size_mb)) x.size_mb += l.size_mb;
      if (!IsMissing(l.time_ms)) x.time_ms += l.time_ms;
    }
    for (auto& [key, x] : links) {
      x.bandwidth_gbps = x.time_ms > 0 ? x.size_mb / x.time_ms : kMissing;
      // Group-local ranks to global ones through the reporting rank's own group table.
      for (const ParallelGroup& g : t.parallel_groups)
        if (g.hash == x.group) {
          if (x.src >= 0 && x.src < static_cast<int>(g.global_ranks.size())) x.src_global = g.global_ranks[x.src];
          if (x.dst >= 0 && x.dst < static_cast<int>(g.global_ranks.size())) x.dst_global = g.global_ranks[x.dst];
        }
      S.comm_links.push_back(x);
    }
  }
}

}  // namespace optrace::analyze
