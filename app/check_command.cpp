#include <algorithm>
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/command_run.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/link_checks.hpp"
#include "app/probe_run.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media_module/media_module.hpp"
#include "report/link_report.hpp"
#include "stats/report_json.hpp"
#include "stats/summary.hpp"

namespace hdstream {
namespace {

// Sends the planned feeds for a short while, as probes the receiver measures apart from its
// real feeds. Returns the sender-side summary.
Summary capacity_probe(const CheckOptions& options, const SendPlan& plan, Snapshot& last,
                       std::vector<ThroughputPoint>& series) {
  ProbeRun run(options.common, plan, options.probe_duration);
  last = run.run();
  series = run.series();
  return summarize(last);
}

// What the receiver measured of the probe, from its FEEDBACK reports (its final report after
// END carries the final counts): bytes and frames it verified, the rate they make over the
// probe's duration, and what it dropped.
struct ProbeReceived {
  std::uint64_t reports = 0;
  std::uint64_t bytes = 0;
  std::uint64_t frames = 0;
  std::uint64_t drops = 0;
  std::uint64_t checksum_errors = 0;
  double mbps = 0;
  double jitter_ms = 0;  // the worst stream's
};

ProbeReceived probe_received(const Snapshot& last, const Summary& sent) {
  ProbeReceived received;
  for (const auto& s : last.streams) {
    if (!s.far_end.valid) continue;
    received.reports += s.far_end.reports;
    received.bytes += s.far_end.bytes;
    received.frames += s.far_end.frames;
    received.drops += s.far_end.drops;
    received.checksum_errors += s.far_end.checksum_errors;
    received.jitter_ms = std::max(received.jitter_ms, s.far_end.jitter_ms);
  }
  if (sent.duration_s > 0) {
    received.mbps = static_cast<double>(received.bytes) * 8 / sent.duration_s / 1e6;
  }
  return received;
}

// The probe passes when the sender's verdict does and the receiver verified every byte sent.
CheckItem probe_item(const SendPlan& plan, std::chrono::nanoseconds duration, const Summary& sent,
                     const ProbeReceived& received) {
  CheckItem item{.name = fmt::format("capacity probe, {} feeds for {}", plan.options.streams,
                                     format_duration(duration))};
  const bool all_verified = received.bytes == sent.bytes && received.frames == sent.frames;
  item.ok = sent.pass && received.reports > 0 && all_verified;
  item.detail = fmt::format(
      "{:.1f} of {:.1f} Mbps planned; receiver verified {:.1f} Mbps, {} frames, {} drops",
      sent.mbps, plan.planned_mbps(), received.mbps, received.frames, sent.drops + received.drops);
  if (received.reports == 0) {
    item.fix = "the receiver reported nothing back: is it hdstream recv with the same --transport?";
  } else if (!item.ok) {
    item.fix = "fewer feeds or a lower --rate, or more capacity on the path";
  }
  return item;
}

}  // namespace

int run_check(const CheckOptions& options) {
  if (options.acceptance.enabled) return run_acceptance(options);
  const SendPlan plan = plan_send(options.send, load_presets(options.common.config_file));
  if (options.report) media_module();  // a report's writer missing fails now, not at the end
  const auto probes = probe_endpoints(plan, std::chrono::seconds(3));
  std::vector<CheckItem> items = link_checks(plan, probes);

  const bool reachable =
      std::all_of(probes.begin(), probes.end(), [](const auto& p) { return p.reachable; });
  Snapshot last;
  std::vector<ThroughputPoint> series;
  Summary probe_summary;
  ProbeReceived received;
  if (reachable) {
    probe_summary = capacity_probe(options, plan, last, series);
    received = probe_received(last, probe_summary);
    items.push_back(probe_item(plan, options.probe_duration, probe_summary, received));
  } else {
    items.push_back(CheckItem{.name = "capacity probe",
                              .ok = false,
                              .detail = "skipped: not every receiver is reachable"});
  }
  const bool pass = std::all_of(items.begin(), items.end(), [](const auto& i) { return i.ok; });

  if (options.common.stats_format == StatsFormat::json) {
    nlohmann::ordered_json out{{"type", "check"},
                               {"destination", plan.destination.name},
                               {"streams", plan.options.streams},
                               {"planned_mbps", plan.planned_mbps()}};
    for (const auto& item : items) {
      out["items"].push_back(
          {{"name", item.name}, {"ok", item.ok}, {"detail", item.detail}, {"fix", item.fix}});
    }
    if (reachable) {
      out["probe"] = summary_json(probe_summary);
      out["probe"]["received"] = {{"reports", received.reports},
                                  {"bytes", received.bytes},
                                  {"frames", received.frames},
                                  {"mbps", std::round(received.mbps * 1000) / 1000},
                                  {"drops", received.drops},
                                  {"checksum_errors", received.checksum_errors},
                                  {"jitter_ms", std::round(received.jitter_ms * 1000) / 1000}};
    }
    out["verdict"] = pass ? "pass" : "fail";
    std::cout << out.dump() << std::endl;
  } else {
    fmt::print(std::cout, "check {} ({} feeds of {}):\n", plan.destination.name,
               plan.options.streams, format_rate(static_cast<double>(plan.rate_per_feed_bps())));
    for (const auto& item : items) {
      fmt::print(std::cout, "  {} {:<44} {}\n", item.ok ? "ok  " : "FAIL", item.name, item.detail);
      if (!item.fix.empty()) fmt::print(std::cout, "       fix: {}\n", item.fix);
    }
    fmt::print(std::cout, "verdict: {}\n", pass ? "PASS" : "FAIL");
  }

  if (options.report) {
    ReportTable table{.title = "Pre-flight checks",
                      .rows = {{"check", "result", "measured", "fix"}}};
    for (const auto& item : items) {
      table.rows.push_back({item.name, item.ok ? "ok" : "FAIL", item.detail, item.fix});
    }
    Summary report_summary = probe_summary;
    report_summary.pass = pass;
    for (const auto& item : items) {
      if (!item.ok) report_summary.reasons.push_back(item.name + ": " + item.detail);
    }
    media_module().write_link_report(
        *options.report,
        LinkReportInput{.title = "hdstream pre-flight check: " + plan.destination.name,
                        .parameters = describe(plan),
                        .series = series,
                        .last = last,
                        .summary = report_summary,
                        .planned_mbps = plan.planned_mbps(),
                        .tables = {table}});
  }
  return pass ? exit_code::success : exit_code::verdict_failed;
}

}  // namespace hdstream
