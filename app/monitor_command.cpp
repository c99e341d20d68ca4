#include <atomic>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/frontends.hpp"
#include "app/runtime.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "gui/monitor_inputs.hpp"
#include "gui/panel_model.hpp"
#include "media_module/media_module.hpp"
#include "stats/json_fields.hpp"
#include "telemetry/stats_poller.hpp"

namespace hdstream {
namespace {

// One line per feed (a stream id at one receiving end) and one aggregate line, each interval.
void print_rows(const PanelModel& model, double t, StatsFormat format, std::ostream& out) {
  for (const auto& row : model.rows()) {
    if (format == StatsFormat::json) {
      nlohmann::ordered_json line = {
          {"type", "monitor"},
          {"t", round3(t)},
          {"stream", row.stream},
          {"destination", row.destination},
          {"sender_host", row.sender_host},
          {"receiver_host", row.receiver_host},
          {"hosts", row.hosts},
          {"state", to_string(row.state)},
          {"health", to_string(row.health)},
          {"mbps", round3(row.mbps)},
          {"drops", row.drops},
          {"frames", row.frames},
          {"jitter_ms", round3(row.jitter_ms)},
          {"rtt_ms", round3(row.rtt_ms)},
          {"has_send", row.has_send},
          {"has_recv", row.has_recv},
      };
      if (row.is_protected) {  // a plain feed's line stays as it was
        line["legs_up"] = row.legs_up;
        line["protected"] = row.protected_frames;
        line["skew_ms"] = round3(row.skew_ms);
      }
      out << line.dump() << '\n';
    } else {
      fmt::print(out,
                 "{:7.1f}s {:<4} {:<6} {:<9} {:8.1f} Mbps  drops {:<24} jitter {:6.2f} ms  rtt "
                 "{:7.2f} ms  {}  {}\n",
                 t, row.label, to_string(row.health), to_string(row.state), row.mbps,
                 format_drops(row), row.jitter_ms, row.rtt_ms, row.destination, row.hosts);
      if (row.is_protected) {
        // An indented line of its own: a plain feed's line stays as it was.
        fmt::print(out, "{:>9}legs {}  {}\n", "", format_legs(row), format_protection(row));
      }
    }
  }
  // The stats schema's aggregate line (BRIEF.md), over every feed of every host watched.
  const auto& agg = model.aggregate();
  if (format == StatsFormat::json) {
    nlohmann::ordered_json line = {
        {"type", "aggregate"},      {"t", round3(t)},
        {"role", "monitor"},        {"streams", agg.feeds},
        {"mbps", round3(agg.mbps)}, {"drops", agg.drops},
        {"healthy", agg.healthy},   {"planned_mbps", round3(agg.planned_mbps)},
    };
    out << line.dump() << '\n';
  } else {
    fmt::print(out, "{:7.1f}s all {}/{} healthy  {:8.1f} of {:.1f} Mbps planned  drops {}\n", t,
               agg.healthy, agg.feeds, agg.mbps, agg.planned_mbps, agg.drops);
  }
  out.flush();
}

}  // namespace

int run_monitor(const MonitorOptions& options) {
  std::vector<Endpoint> hosts;
  for (const auto& text : options.hosts) hosts.push_back(parse_endpoint(text));
  const bool gui = want_gui(options.common, /*default_on=*/true);
  StatsOutput output(options.common);
  HttpClientSettings http;
  if (options.http_config) {
    try {
      http = http_client_settings(*options.http_config);
    } catch (const WebConfigError& error) {
      throw UsageError(std::string("--http-config: ") + error.what());
    }
  }
  Runtime runtime;
  auto poller = std::make_shared<StatsPoller>(
      runtime.io(), hosts,
      StatsPollerOptions{
          .interval = std::chrono::duration_cast<std::chrono::milliseconds>(options.poll),
          .fetch_pictures = gui,
          .http = std::move(http)});
  std::atomic<bool> finishing{false};
  auto finish = [&] {
    if (finishing.exchange(true)) return;
    poller->stop();
    runtime.shutdown();
  };
  runtime.on_interrupt(finish);
  if (options.duration.count() > 0) runtime.deadline(options.duration, finish);
  poller->start();
  logger("monitor")->info(
      "watching {} host(s) every {} ms", hosts.size(),
      std::chrono::duration_cast<std::chrono::milliseconds>(options.poll).count());

  auto provider = [poller](double now_s) {
    return monitor_inputs(poller->latest(), now_s, wall_clock_ns());
  };
  if (gui) {
    media_module().run_qt(QtRun{.title = "hdstream monitor",
                                .panel = true,
                                .provider = provider,
                                .host_pictures = poller,
                                .work = [&runtime] { runtime.run(); },
                                .request_stop = finish});
  } else {
    // Console: the same model, printed each --interval.
    auto model = std::make_shared<PanelModel>();
    std::ostream& out = output.stream();
    const double start_s = steady_seconds();
    runtime.start_stats(options.common.interval, [&, model] {
      const double now_s = steady_seconds();
      model->update(provider(now_s), now_s);
      print_rows(*model, now_s - start_s, options.common.stats_format, out);
    });
    runtime.run();
  }
  return runtime.interrupted() ? exit_code::interrupted : exit_code::success;
}

}  // namespace hdstream
