// Communication tables: per rank, per rank and transport, per link, and (full mode) per op.
#include "analyze/report/summary_tables.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "analyze/report/table_helpers.h"

namespace optrace::analyze::report {

using namespace internal;

Table CommunicationRankTable(const AnalysisResult& r) {
  Table t{"communication_rank_summary",
          {"rank", "collective_ops", "elapse_ms", "transit_ms", "wait_ms", "synchronization_ms", "idle_ms", "wait_ratio",
           "synchronization_ratio"},
          {}};
  for (const CommRankSummary& c : r.summaries.comm_ranks)
    t.rows.push_back({I(c.rank), I(static_cast<int64_t>(c.ops)), D(c.elapse_ms), D(c.transit_ms), D(c.wait_ms),
                      D(c.sync_ms), D(c.idle_ms), D(c.wait_ratio), D(c.sync_ratio)});
  return t;
}

Table CommunicationTransportTable(const AnalysisResult& r) {
  Table t{"communication_transport_summary",
          {"rank", "transport", "ops", "transit_size_mb", "transit_time_ms", "bandwidth_gbps", "small_packet_time_share",
           "small_packet_transfers"},
          {}};
  for (const CommTransportSummary& c : r.summaries.comm_transports)
    t.rows.push_back({I(c.rank), S(c.transport), I(static_cast<int64_t>(c.ops)), D(c.size_mb), D(c.time_ms),
                      D(c.bandwidth_gbps), D(c.small_packet_time_share), D(c.small_packet_count)});
  return t;
}

Table CommunicationLinkTable(const AnalysisResult& r) {
  Table t{"communication_link_summary",
          {"reported_by_rank", "group", "src_local_rank", "dst_local_rank", "src_global_rank", "dst_global_rank",
           "transport", "entries", "transit_size_mb", "transit_time_ms", "bandwidth_gbps"},
          {}};
  for (const CommLinkSummary& c : r.summaries.comm_links)
    t.rows.push_back({I(c.reported_by), S(c.group), I(c.src), I(c.dst), KnownI(c.src_global), KnownI(c.dst_global),
                      S(c.transport), I(static_cast<int64_t>(c.entries)), D(c.size_mb), D(c.time_ms),
                      D(c.bandwidth_gbps)});
  return t;
}

Table CommunicationGroupTable(const AnalysisResult& r) {
  Table t{"communication_group_summary",
          {"group", "pg_name", "kind", "global_ranks", "collectives", "max_skew_ratio", "mean_skew_ratio", "last_rank",
           "last_rank_count"},
          {}};
  std::map<std::string, const GroupSkew*> skew;
  for (const GroupSkew& g : r.cross_rank.groups) skew[g.group] = &g;
  std::set<std::string> listed;
  for (const ParallelGroup& g : r.summaries.groups) {
    std::vector<std::string> ranks;
    for (int x : g.global_ranks) ranks.push_back(std::to_string(x));
    const GroupSkew* k = skew.count(g.hash) ? skew[g.hash] : nullptr;
    t.rows.push_back({S(g.hash), S(g.pg_name), S(g.kind), S(Join(ranks, ";")), k ? I(k->collectives) : Cell(),
                      k ? D(k->max_skew_ratio) : Cell(), k ? D(k->mean_skew_ratio) : Cell(),
                      k ? KnownI(k->last_rank) : Cell(), k ? I(k->last_rank_count) : Cell()});
    listed.insert(g.hash);
  }
  for (const GroupSkew& k : r.cross_rank.groups)  // groups profiler_metadata.json does not describe
    if (!listed.count(k.group))
      t.rows.push_back({S(k.group), S(k.pg_name), S(k.kind), S(std::string()), I(k.collectives), D(k.max_skew_ratio),
                        D(k.mean_skew_ratio), KnownI(k.last_rank), I(k.last_rank_count)});
  return t;
}

Table CommunicationOpTable(const AnalysisResult& r) {
  Table t{"communication_op_summary",
          {"rank", "step", "kind", "op", "group", "elapse_ms", "transit_ms", "wait_ms", "synchronization_ms", "idle_ms",
           "wait_ratio", "synchronization_ratio", "transports"},
          {}};
  for (const RankTable& rank : r.ranks)
    for (const CommOp& op : rank.comm_ops) {
      std::vector<std::string> transports;
      for (const CommBandwidth& b : op.bandwidth)
        transports.push_back(fmt::format("{}:{}MB/{}ms", b.transport, FormatNumber(b.size_mb), FormatNumber(b.time_ms)));
      t.rows.push_back({I(rank.rank), S(op.step), S(std::string(op.p2p ? "p2p" : "collective")), S(op.name), S(op.group),
                        D(op.elapse_ms), D(op.transit_ms), D(op.wait_ms), D(op.sync_ms), D(op.idle_ms), D(op.wait_ratio),
                        D(op.sync_ratio), S(Join(transports, ";"))});
    }
  return t;
}

}  // namespace optrace::analyze::report
