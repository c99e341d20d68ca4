#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/link_checks.hpp"
#include "app/runtime.hpp"
#include "app/senders.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "report/link_report.hpp"

namespace hdstream {
namespace {

// Sends the planned feeds for a short while, as probes the receiver measures apart from its
// real feeds. Returns the sender-side summary.
Summary capacity_probe(const SendPlan& plan, std::chrono::nanoseconds duration, Snapshot& last,
                       LinkRecorder& recorder) {
  SendPlan probe = plan;
  probe.options.probe = true;
  probe.options.duration = duration;
  probe.options.connect_patience = std::chrono::seconds(3);
  Runtime runtime;
  StatsRegistry stats(Role::send, probe.options.streams, std::string(to_string(probe.options.transport)));
  SenderGroup senders(runtime, stats, probe, [&] { runtime.shutdown(); });
  runtime.start_stats(std::chrono::milliseconds(250), [&] { recorder.add(stats.sample()); });
  senders.start();
  runtime.run();
  last = stats.sample();
  return summarize(last);
}

}  // namespace

int run_check(const CheckOptions& options) {
  const SendPlan plan = plan_send(options.send, load_presets(options.common.config_file));
  const auto probes = probe_endpoints(plan, std::chrono::seconds(3));
  std::vector<CheckItem> items = link_checks(plan, probes);

  const bool reachable = std::all_of(probes.begin(), probes.end(), [](const auto& p) { return p.reachable; });
  Snapshot last;
  LinkRecorder recorder;
  Summary probe_summary;
  if (reachable) {
    probe_summary = capacity_probe(plan, options.probe_duration, last, recorder);
    items.push_back(CheckItem{
        .name = fmt::format("capacity probe, {} feeds for {}", plan.options.streams,
                            format_duration(options.probe_duration)),
        .ok = probe_summary.pass,
        .detail = fmt::format("{:.1f} of {:.1f} Mbps planned, {} drops", probe_summary.mbps,
                              plan.planned_mbps(), probe_summary.drops),
        .fix = probe_summary.pass ? "" : "fewer feeds or a lower --rate, or more capacity on the path"});
  } else {
    items.push_back(CheckItem{.name = "capacity probe", .ok = false,
                              .detail = "skipped: not every receiver is reachable"});
  }
  const bool pass = std::all_of(items.begin(), items.end(), [](const auto& i) { return i.ok; });

  if (options.common.stats_format == StatsFormat::json) {
    nlohmann::ordered_json out{{"type", "check"}, {"destination", plan.destination.name},
                               {"streams", plan.options.streams},
                               {"planned_mbps", plan.planned_mbps()}};
    for (const auto& item : items) {
      out["items"].push_back({{"name", item.name}, {"ok", item.ok}, {"detail", item.detail},
                              {"fix", item.fix}});
    }
    if (reachable) out["probe"] = summary_json(probe_summary);
    out["verdict"] = pass ? "pass" : "fail";
    std::cout << out.dump() << std::endl;
  } else {
    fmt::print(std::cout, "check {} ({} feeds of {}):\n", plan.destination.name,
               plan.options.streams, format_rate(static_cast<double>(plan.options.rate_bps)));
    for (const auto& item : items) {
      fmt::print(std::cout, "  {} {:<44} {}\n", item.ok ? "ok  " : "FAIL", item.name, item.detail);
      if (!item.fix.empty()) fmt::print(std::cout, "       fix: {}\n", item.fix);
    }
    fmt::print(std::cout, "verdict: {}\n", pass ? "PASS" : "FAIL");
  }

  if (options.report) {
    ReportTable table{.title = "Pre-flight checks", .rows = {{"check", "result", "measured", "fix"}}};
    for (const auto& item : items) {
      table.rows.push_back({item.name, item.ok ? "ok" : "FAIL", item.detail, item.fix});
    }
    Summary report_summary = probe_summary;
    report_summary.pass = pass;
    for (const auto& item : items) {
      if (!item.ok) report_summary.reasons.push_back(item.name + ": " + item.detail);
    }
    write_link_report(*options.report,
                      LinkReportInput{.title = "hdstream pre-flight check: " + plan.destination.name,
                                      .parameters = describe(plan),
                                      .series = recorder.series(),
                                      .last = last,
                                      .summary = report_summary,
                                      .planned_mbps = plan.planned_mbps(),
                                      .tables = {table}});
  }
  return pass ? exit_code::success : exit_code::verdict_failed;
}

}  // namespace hdstream
