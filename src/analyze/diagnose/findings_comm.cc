// Communication findings: a slow link, a group split over two transports, ranks that wait for a
// late one, small packets, SDMA copies of unaligned sizes. Each rests
// on the communication.json / communication_matrix.json numbers of summarize (communication.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analyze/diagnose/diagnose.h"
#include "analyze/diagnose/finding_builder.h"
#include "core/quantile.h"

namespace optrace::analyze {
namespace {

// Evidence that points at a rank's communication.json (or communication_matrix.json).
Evidence FileEvidence(const AnalysisResult& res, int rank, bool matrix, std::string note) {
  Evidence ev;
  ev.rank = rank;
  ev.note = std::move(note);
  for (const RankInput& in : res.discovery.ranks)
    if (in.rank == rank) ev.file = (matrix ? in.communication_matrix : in.communication).string();
  return ev;
}

void SlowLinks(const AnalysisResult& res, const Thresholds& th, std::vector<Finding>& out) {
  std::map<std::string, std::vector<const CommLinkSummary*>> by_transport;
  for (const CommLinkSummary& l : res.summaries.comm_links)
    if (l.transport != "LOCAL" && l.size_mb >= th.slow_link_min_mb && !IsMissing(l.bandwidth_gbps))
      by_transport[l.transport].push_back(&l);
  for (auto& [transport, links] : by_transport) {
    if (static_cast<int>(links.size()) < th.slow_link_min_links) continue;
    std::vector<double> bw;
    for (const CommLinkSummary* l : links) bw.push_back(l->bandwidth_gbps);
    std::sort(bw.begin(), bw.end());
    double median = Quantile(bw, 0.5);
    std::vector<const CommLinkSummary*> slow;
    for (const CommLinkSummary* l : links)
      if (l->bandwidth_gbps < th.slow_link_ratio * median) slow.push_back(l);
    if (slow.empty()) continue;
    std::sort(slow.begin(), slow.end(), [](auto* a, auto* b) { return a->bandwidth_gbps < b->bandwidth_gbps; });
    const CommLinkSummary& w = *slow.front();
    Finding f;
    f.severity = Severity::kMedium;
    f.type = "slow_link";
    f.rank = w.reported_by;
    f.summary = fmt::format(
        "{} {} link(s) run below {:.0f}% of the median {} bandwidth ({:.2f} GB/s over {} links); the slowest is "
        "{}->{} of group {} (group-local ranks, reported by rank {}): {:.2f} GB/s, {:.1f} MB in {:.3f} ms.",
        slow.size(), transport, th.slow_link_ratio * 100, transport, median, links.size(), w.src, w.dst, w.group,
        w.reported_by, w.bandwidth_gbps, w.size_mb, w.time_ms);
    f.numbers = {{"bandwidth_gbps", w.bandwidth_gbps},
                 {"median_gbps", median},
                 {"ratio", median > 0 ? w.bandwidth_gbps / median : 0},
                 {"slow_links", double(slow.size())},
                 {"links", double(links.size())}};
    for (const CommLinkSummary* l : slow)
      f.evidence.push_back(FileEvidence(
          res, l->reported_by, true,
          fmt::format("group {} link {}-{} {}: {:.2f} GB/s ({:.1f} MB / {:.3f} ms, {} entries)", l->group, l->src,
                      l->dst, l->transport, l->bandwidth_gbps, l->size_mb, l->time_ms, l->entries)));
    out.push_back(std::move(f));
  }
}

// One communication group whose links go over two transports (HCCS inside a server and PCIe or
// RDMA across it): a collective runs at its slowest link, so the placement of the group's ranks,
// not the kernels, sets its speed. Reported when the slower transport's median bandwidth is below
// slow_link_ratio of the faster one's; links under slow_link_min_mb are latency, not bandwidth.
void MixedTransportGroups(const AnalysisResult& res, const Thresholds& th, std::vector<Finding>& out) {
  std::map<std::string, std::map<std::string, std::vector<const CommLinkSummary*>>> by_group;
  for (const CommLinkSummary& l : res.summaries.comm_links)
    if (l.transport != "LOCAL" && !l.transport.empty() && l.size_mb >= th.slow_link_min_mb &&
        !IsMissing(l.bandwidth_gbps))
      by_group[l.group][l.transport].push_back(&l);
  for (const auto& [group, transports] : by_group) {
    if (transports.size() < 2) continue;
    struct Side {
      std::string transport;
      double median = 0, mb = 0, ms = 0;
      size_t links = 0;
      const CommLinkSummary* example = nullptr;
    };
    std::vector<Side> sides;
    for (const auto& [transport, links] : transports) {
      Side s{transport};
      std::vector<double> bw;
      for (const CommLinkSummary* l : links) {
        bw.push_back(l->bandwidth_gbps);
        s.mb += l->size_mb;
        s.ms += l->time_ms;
        if (!s.example || l->bandwidth_gbps < s.example->bandwidth_gbps) s.example = l;
      }
      std::sort(bw.begin(), bw.end());
      s.median = Quantile(bw, 0.5);
      s.links = links.size();
      sides.push_back(s);
    }
    std::sort(sides.begin(), sides.end(), [](const Side& a, const Side& b) { return a.median > b.median; });
    const Side& fast = sides.front();
    const Side& slow = sides.back();
    if (!(slow.median < th.slow_link_ratio * fast.median)) continue;
    Finding f;
    f.severity = Severity::kLow;
    f.type = "mixed_transport_group";
    f.rank = slow.example->reported_by;
    f.summary = fmt::format(
        "Group {} moves data over {} and {}: its {} {} link(s) run at a median {:.2f} GB/s, {:.0f}% of its {} {} "
        "link(s) ({:.2f} GB/s), and carry {:.1f} MB in {:.3f} ms; a collective of the group runs at its slowest link, so "
        "where its ranks are placed (one server's HCCS, or across servers) sets its speed.",
        group, fast.transport, slow.transport, slow.links, slow.transport, slow.median,
        fast.median > 0 ? 100 * slow.median / fast.median : 0, fast.links, fast.transport, fast.median, slow.mb, slow.ms);
    f.numbers = {{"slow_median_gbps", slow.median},
                 {"fast_median_gbps", fast.median},
                 {"ratio", fast.median > 0 ? slow.median / fast.median : 0},
                 {"slow_links", double(slow.links)},
                 {"fast_links", double(fast.links)},
                 {"slow_mb", slow.mb},
                 {"slow_ms", slow.ms}};
    for (const Side& s : sides)
      f.evidence.push_back(FileEvidence(
          res, s.example->reported_by, true,
          fmt::format("group {} {}: {} link(s), median {:.2f} GB/s; slowest {}-{} {:.2f} GB/s ({:.1f} MB / {:.3f} ms)",
                      group, s.transport, s.links, s.median, s.example->src, s.example->dst,
                      s.example->bandwidth_gbps, s.example->size_mb, s.example->time_ms)));
    out.push_back(std::move(f));
  }
}

void WaitingRanks(const AnalysisResult& res, const Thresholds& th, int slow_rank, std::vector<Finding>& out) {
  std::vector<const CommRankSummary*> ranks;
  for (const CommRankSummary& r : res.summaries.comm_ranks)
    if (!IsMissing(r.wait_ratio)) ranks.push_back(&r);
  std::vector<const CommRankSummary*> waiting;
  for (const CommRankSummary* r : ranks)
    if (r->wait_ratio > th.comm_wait_ratio_high) waiting.push_back(r);
  if (waiting.empty()) return;
  // In a collective every rank waits for the last to arrive: the rank that waits least is the
  // late one (when there is a rank to compare with).
  const CommRankSummary* least =
      *std::min_element(ranks.begin(), ranks.end(), [](auto* a, auto* b) { return a->wait_ratio < b->wait_ratio; });
  std::vector<int> ids;
  for (const CommRankSummary* r : waiting) ids.push_back(r->rank);
  Finding f;
  f.severity = Severity::kMedium;
  f.type = "comm_wait_dominated";
  f.ranks = ids;
  f.rank = waiting.size() == 1 ? waiting.front()->rank : -1;
  std::string late;
  if (ranks.size() >= 2 && least->wait_ratio <= th.comm_wait_ratio_high) {
    late = fmt::format(" Rank {} waits least ({:.0f}%): it arrives last, the likely late rank", least->rank,
                       least->wait_ratio * 100);
    late += slow_rank < 0 ? "; the lateness measure names no slow rank."
            : slow_rank == least->rank
                ? fmt::format("; the slow_rank finding names the same rank ({}).", slow_rank)
                : fmt::format("; the slow_rank finding names rank {} instead.", slow_rank);
  }
  double worst = 0;
  for (const CommRankSummary* r : waiting) worst = std::max(worst, r->wait_ratio);
  f.summary = fmt::format(
      "Rank(s) {} spend more than {:.0f}% of their communication transit + wait time waiting (up to {:.0f}%): "
      "waiting dominates transit, the link is not the limit.{}",
      FormatRankList(ids), th.comm_wait_ratio_high * 100, worst * 100, late);
  f.numbers = {{"max_wait_ratio", worst}, {"waiting_ranks", double(waiting.size())}};
  if (!late.empty()) {
    f.numbers.push_back({"late_rank", double(least->rank)});
    f.numbers.push_back({"late_rank_wait_ratio", least->wait_ratio});
  }
  for (const CommRankSummary* r : waiting)
    f.evidence.push_back(
        FileEvidence(res, r->rank, false,
                     fmt::format("rank {}: wait {:.3f} ms, transit {:.3f} ms over {} ops (wait ratio {:.2f})", r->rank,
                                 r->wait_ms, r->transit_ms, r->ops, r->wait_ratio)));
  out.push_back(std::move(f));
}

void SmallPackets(const AnalysisResult& res, const Thresholds& th, std::vector<Finding>& out) {
  for (const CommTransportSummary& x : res.summaries.comm_transports) {
    if (IsMissing(x.small_packet_time_share) || x.small_packet_time_share < th.small_packet_time_share ||
        x.time_ms < th.small_packet_min_ms)
      continue;
    Finding f;
    f.severity = Severity::kLow;
    f.type = "small_packets";
    f.rank = x.rank;
    f.summary = fmt::format(
        "Rank {}: packets below {} MB carry {:.0f}% of its {} transit time ({:.3f} ms, {:.0f} small transfers): "
        "latency, not bandwidth, bounds these transfers (fuse or bucket the messages).",
        x.rank, th.small_packet_mb, x.small_packet_time_share * 100, x.transport, x.time_ms, x.small_packet_count);
    f.numbers = {{"small_packet_time_share", x.small_packet_time_share},
                 {"transit_ms", x.time_ms},
                 {"small_transfers", x.small_packet_count}};
    f.evidence.push_back(
        FileEvidence(res, x.rank, false, fmt::format("{} Size Distribution of rank {}'s ops", x.transport, x.rank)));
    out.push_back(std::move(f));
  }
}

// SDMA copies whose size is not a multiple of byte_alignment_bytes (msprof-analyze's advisor's
// byte alignment check, on the same tasks): per rank, the communication operators with such a
// copy and that copy time's share of all checked copies, which sets the severity.
void UnalignedSdmaCopies(const AnalysisResult& res, const Thresholds& th, std::vector<Finding>& out) {
  for (const RankTable& t : res.ranks) {
    int64_t checked_ns = 0, unaligned_ns = 0;
    uint32_t calls = 0, unaligned_calls = 0, unaligned_tasks = 0;
    std::vector<const SdmaOpAlignment*> ops;
    for (const SdmaOpAlignment& a : t.sdma_alignment) {
      checked_ns += a.dur_ns;
      unaligned_ns += a.unaligned_dur_ns;
      calls += a.calls;
      if (!a.unaligned_calls) continue;
      unaligned_calls += a.unaligned_calls;
      unaligned_tasks += a.unaligned_tasks;
      ops.push_back(&a);
    }
    if (ops.empty()) continue;
    std::sort(ops.begin(), ops.end(), [](auto* a, auto* b) { return a->unaligned_dur_ns > b->unaligned_dur_ns; });
    const double share = checked_ns > 0 ? double(unaligned_ns) / double(checked_ns) : 0.0;
    Finding f;
    f.severity = share >= th.byte_alignment_high_share ? Severity::kHigh
                 : share < th.byte_alignment_low_share  ? Severity::kLow
                                                        : Severity::kMedium;
    f.type = "unaligned_sdma_copies";
    f.rank = t.rank;
    const SdmaOpAlignment& w = *ops.front();
    f.summary = fmt::format(
        "Rank {}: {} of {} communication call(s) ({} operator(s); most: {}) copy over SDMA in sizes that are not a "
        "multiple of {} bytes ({} copies, e.g. {} bytes): {:.3f} of {:.3f} ms of checked copy time ({:.0f}%). "
        "Unaligned copies run below the link's bandwidth: make the communicated sizes multiples of {} bytes.",
        t.rank, unaligned_calls, calls, ops.size(), w.op.empty() ? "unnamed" : w.op, th.byte_alignment_bytes,
        unaligned_tasks, w.unaligned_example_bytes, findings::Ms(unaligned_ns), findings::Ms(checked_ns), share * 100,
        th.byte_alignment_bytes);
    f.numbers = {{"unaligned_share", share},
                 {"unaligned_ms", findings::Ms(unaligned_ns)},
                 {"checked_ms", findings::Ms(checked_ns)},
                 {"unaligned_calls", double(unaligned_calls)},
                 {"calls", double(calls)},
                 {"unaligned_copies", double(unaligned_tasks)}};
    std::string db;
    for (const RankInput& in : res.discovery.ranks)
      if (in.rank == t.rank && !in.db.empty()) db = in.db.string() + "#COMMUNICATION_TASK_INFO";
    for (const SdmaOpAlignment* a : ops) {
      Evidence ev;
      ev.rank = t.rank;
      ev.file = db;
      ev.note = fmt::format("{}: {} of {} call(s), {} of {} copies unaligned ({:.3f} of {:.3f} ms, e.g. {} bytes)",
                            a->op.empty() ? "unnamed operator" : a->op, a->unaligned_calls, a->calls,
                            a->unaligned_tasks, a->tasks, findings::Ms(a->unaligned_dur_ns), findings::Ms(a->dur_ns),
                            a->unaligned_example_bytes);
      f.evidence.push_back(std::move(ev));
    }
    out.push_back(std::move(f));
  }
}

}  // namespace

std::vector<Finding> CommunicationFindings(const AnalysisResult& res, const Rules& rules, int slow_rank) {
  std::vector<Finding> out;
  SlowLinks(res, rules.thresholds, out);
  MixedTransportGroups(res, rules.thresholds, out);
  WaitingRanks(res, rules.thresholds, slow_rank, out);
  SmallPackets(res, rules.thresholds, out);
  UnalignedSdmaCopies(res, rules.thresholds, out);
  return out;
}

}  // namespace optrace::analyze
