// `hdstream bench`: ttcp / NTttcp / Netbench-style memory-to-memory throughput with every byte
// verified. The sending side (--dest) pushes unpaced synthetic frames for --duration; the far
// end is `hdstream bench --listen` (or `hdstream recv`, which verifies the same way). Each side
// reports its own goodput and CPU.
#include <atomic>
#include <chrono>
#include <memory>

#include "app/bench_report.hpp"
#include "app/command_run.hpp"
#include "app/commands.hpp"
#include "app/receivers.hpp"
#include "app/send_plan.hpp"
#include "app/senders.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media_module/media_module.hpp"
#include "presets/presets.hpp"
#include "report/link_report.hpp"
#include "stats/summary.hpp"

namespace hdstream {
namespace {

int run_bench_receiver(const BenchOptions& options) {
  const Endpoint listen = parse_endpoint(options.listen, /*listening=*/true);
  CommandRun run(options.common, IoThreads::per_core);
  StatsRegistry& stats =
      run.add_registry(Role::recv, options.send.streams,
                       std::string(to_string(options.send.transport)), {.lines = Lines::json_only});
  ReceiverGroup receivers(run.runtime(), stats, Wire{options.send.transport},
                          {.listen = listen,
                           .max_memory_bytes = options.max_memory_bytes,
                           .srt = SrtSettings{.passphrase = options.common.srt_passphrase},
                           .key = options.common.key},
                          run.part());
  run.on_finish([&] { receivers.stop(); });
  receivers.start();
  run.finish_on_interrupt();
  CpuClock cpu;
  run.start_stats();
  run.run();

  const Snapshot last = stats.sample();
  const Summary summary = summarize(last, 0);
  // The receiver's window is first to last frame: connection set-up is not throughput.
  auto result =
      make_bench_result(last, summary, summary.duration_s, cpu.elapsed(), options.distance_km);
  print_bench(result, options.common.stats_format, run.stream());
  return run.exit_code(summary, /*runtime_failure=*/false);
}

int run_bench_sender(const BenchOptions& options) {
  const PresetStore store = load_presets(options.common.config_file);
  SendPlan plan;
  plan.options = options.send;
  plan.destination = resolve_destination(store, options.send.dest);
  // As plan_send: a destination preset may name the transport, which decides what its key is.
  if (options.common.explicit_options.count("transport") == 0 && plan.destination.transport) {
    plan.options.transport = *plan.destination.transport;
  }
  plan_key(plan.options, plan.destination);
  plan.format = resolve_format(store, "synthetic");
  for (std::size_t i = 0; i < options.send.streams; ++i) {
    plan.endpoints.push_back(plan.destination.endpoint_for(i));
  }
  const DestinationPreset& destination = plan.destination;
  // A destination preset with a distance gives the land-speed-record metric by itself.
  const double distance_km =
      options.distance_km > 0 ? options.distance_km : destination.distance_km.value_or(0);
  const bool unpaced = options.send.rate_bps == 0;
  std::vector<FeedSetup> feeds = plan_feeds(plan);
  if (unpaced) {
    for (auto& feed : feeds) feed.request.unpaced_frame_bytes = options.frame_bytes;
  }

  CommandRun run(options.common, IoThreads::per_core);
  StatsRegistry& stats = run.add_registry(Role::send, options.send.streams,
                                          std::string(to_string(plan.options.transport)),
                                          {.lines = Lines::json_only, .record = true});
  std::atomic<std::int64_t> done_ns{0};
  SenderGroup senders(run.runtime(), stats, feeds, [&, done = run.part()] {
    done_ns = wall_clock_ns();
    done();
  });
  logger("hdstream")
      ->info("bench: {} stream(s) {} to {} ({}) for {}", options.send.streams,
             unpaced ? std::string("unpaced")
                     : "at " + format_rate(static_cast<double>(options.send.rate_bps)),
             destination.name, plan.endpoints.front().to_string(),
             format_duration(options.send.duration));
  CpuClock cpu;
  run.start_stats();
  senders.start();
  run.run();

  const Snapshot last = stats.sample();
  const Summary summary = summarize(last, 0);
  // Sent bytes count once the receiver confirmed the END after them, so the sender's window
  // runs from the first frame to the last confirmation: bytes still in flight when the last
  // write completed cannot inflate it.
  std::int64_t first_ns = 0;
  for (const auto& s : last.streams) {
    if (s.first_frame_ns > 0 && (first_ns == 0 || s.first_frame_ns < first_ns))
      first_ns = s.first_frame_ns;
  }
  const std::int64_t end_ns = done_ns.load() ? done_ns.load() : wall_clock_ns();
  const double window_s = first_ns > 0 ? static_cast<double>(end_ns - first_ns) / 1e9 : 0;
  auto result = make_bench_result(last, summary, window_s, cpu.elapsed(), distance_km);
  print_bench(result, options.common.stats_format, run.stream());
  if (options.report) {
    auto parameters = describe(plan);
    parameters.emplace_back("mode", unpaced ? "memory-to-memory, unpaced" : "paced");
    parameters.emplace_back("aggregate goodput", format_rate(result.mbps * 1e6));
    parameters.emplace_back("sender CPU", fmt::format("{:.1f}% of one core", result.cpu_percent()));
    parameters.emplace_back("cycles per byte", fmt::format("{:.2f}", result.cycles_per_byte()));
    if (result.distance_km > 0) {
      parameters.emplace_back("land-speed metric", fmt::format("{:.3f} petabit-metres/s",
                                                               result.petabit_metres_per_s()));
    }
    media_module().write_link_report(
        *options.report, LinkReportInput{.title = "hdstream bench to " + destination.name,
                                         .parameters = std::move(parameters),
                                         .series = run.recorder().series(),
                                         .last = last,
                                         .summary = summary,
                                         .planned_mbps = 0,
                                         .tables = {}});
  }
  return run.exit_code(summary, senders.failures() > 0);
}

}  // namespace

int run_bench(const BenchOptions& options) {
  if (options.report) media_module();  // a report's writer missing fails now, not at the end
  return options.listen.empty() ? run_bench_sender(options) : run_bench_receiver(options);
}

}  // namespace hdstream
