#include <fmt/format.h>

#include "app/command_run.hpp"
#include "app/commands.hpp"
#include "app/send_plan.hpp"
#include "app/senders.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media_module/media_module.hpp"
#include "report/link_report.hpp"
#include "stats/summary.hpp"

namespace hdstream {

int run_send(const SendOptions& options) {
  const SendPlan plan = plan_send(options, load_presets(options.common.config_file));
  if (plan.options.report) media_module();  // a report's writer missing fails now, not at the end
  CommandRun run(plan.options.common);
  StatsRegistry& stats =
      run.add_registry(Role::send, plan.options.streams,
                       std::string(to_string(plan.options.transport)), {.record = true});
  SenderGroup senders(run.runtime(), stats, plan_feeds(plan), run.part());

  const auto path = [](const std::vector<Endpoint>& endpoints, const std::string& source) {
    return fmt::format("{}{}{}", endpoints.front().to_string(), endpoints.size() > 1 ? ", ..." : "",
                       source.empty() ? "" : " from " + source);
  };
  logger("hdstream")
      ->info("sending {} {} feed(s) of {} to {} ({}{})", plan.options.streams, plan.format.name,
             format_rate(static_cast<double>(plan.rate_per_feed_bps())), plan.destination.name,
             path(plan.endpoints, plan.source_a),
             plan.endpoints_b.empty() ? "" : "; path B " + path(plan.endpoints_b, plan.source_b));
  run.start_stats();
  senders.start();
  run.run_with_frontends(want_gui(plan.options.common, /*default_on=*/false),
                         fmt::format("hdstream send \u2192 {}", plan.destination.name),
                         {plan.endpoints.front().to_string()});

  const Snapshot last = stats.sample();
  const Summary summary = summarize(last);
  run.report().far_end(last);
  run.report().protection(last);
  run.report().outages(last);
  run.report().summary(summary);
  if (plan.options.report) {
    media_module().write_link_report(
        *plan.options.report,
        LinkReportInput{.title = "hdstream link report: send to " + plan.destination.name,
                        .parameters = describe(plan),
                        .series = run.recorder().series(),
                        .last = last,
                        .summary = summary,
                        .planned_mbps = plan.planned_mbps(),
                        .tables = {}});
  }
  return run.exit_code(summary, senders.failures() > 0);
}

}  // namespace hdstream
