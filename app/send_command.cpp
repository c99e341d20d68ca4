#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/frontends.hpp"
#include "app/runtime.hpp"
#include "app/send_plan.hpp"
#include "app/senders.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "report/link_report.hpp"

namespace hdstream {

int exit_code_for(const Summary& summary, bool interrupted, bool runtime_failure) {
  if (interrupted) return exit_code::interrupted;
  if (runtime_failure) return exit_code::runtime_failure;
  return summary.pass ? exit_code::success : exit_code::verdict_failed;
}

int run_send(const SendOptions& options) {
  const SendPlan plan = plan_send(options, load_presets(options.common.config_file));
  StatsOutput output(plan.options.common);
  Runtime runtime;
  StatsRegistry stats(Role::send, plan.options.streams,
                      std::string(to_string(plan.options.transport)));
  SenderGroup senders(runtime, stats, plan, [&] { runtime.shutdown(); });

  logger("hdstream")
      ->info("sending {} {} feed(s) of {} to {} ({}{})", plan.options.streams, plan.format.name,
             format_rate(static_cast<double>(plan.options.rate_bps)), plan.destination.name,
             plan.endpoints.front().to_string(), plan.endpoints.size() > 1 ? ", ..." : "");
  LinkRecorder recorder;
  runtime.start_stats(plan.options.common.interval, [&] {
    const Snapshot snapshot = stats.sample();
    recorder.add(snapshot);
    output.report().interval(snapshot);
  });
  senders.start();
  run_with_frontends(runtime, plan.options.common, {{&stats, plan.endpoints.front().to_string()}},
                     want_gui(plan.options.common, /*default_on=*/false),
                     fmt::format("hdstream send \u2192 {}", plan.destination.name));

  const Snapshot last = stats.sample();
  const Summary summary = summarize(last);
  output.report().far_end(last);
  output.report().outages(last);
  output.report().summary(summary);
  if (plan.options.report) {
    write_link_report(
        *plan.options.report,
        LinkReportInput{.title = "hdstream link report: send to " + plan.destination.name,
                        .parameters = describe(plan),
                        .series = recorder.series(),
                        .last = last,
                        .summary = summary,
                        .planned_mbps = plan.planned_mbps(),
                        .tables = {}});
  }
  return exit_code_for(summary, runtime.interrupted(), senders.failures() > 0);
}

}  // namespace hdstream
