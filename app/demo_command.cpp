#include <atomic>
#include <memory>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/receivers.hpp"
#include "app/runtime.hpp"
#include "app/senders.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media/gst_display.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {

// Senders and receivers in one process over loopback TCP: the whole data path, no setup.
int run_demo(const DemoOptions& options) {
  StatsOutput output(options.common);
  Runtime runtime;
  StatsRegistry sent(Role::send, options.streams, "tcp");
  StatsRegistry received(Role::recv, options.streams, "tcp");

  std::atomic<int> parts_running{2};  // the sender group and the receiver group
  auto part_done = [&] {
    if (--parts_running == 0) runtime.shutdown();
  };
  // Moving pictures when there is a screen; otherwise decode and discard (still proves the
  // decoders keep up). Synthetic feeds are not video: nothing to decode.
  std::string output_spec = options.output;
  if (output_spec == "auto") output_spec = display_problem(false).empty() ? "display" : "null";
  MediaOutput media;
  try {
    media = parse_output(output_spec, options.streams, options.fullscreen);
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  std::unique_ptr<ReceiverGroup> receivers;
  receivers = std::make_unique<ReceiverGroup>(
      runtime, received, TransportKind::tcp, Endpoint{"127.0.0.1", 0},
      [&] {
        receivers->stop();
        part_done();
      },
      std::move(media));
  receivers->start();

  SendOptions send;
  send.dest = receivers->local_endpoint().to_string();
  send.streams = options.streams;
  send.rate_bps = options.rate_bps;
  send.duration = options.duration;
  send.format = options.format;
  send.sources = options.sources;
  SenderGroup senders(runtime, sent, send, receivers->local_endpoint(), part_done);
  // On Ctrl-C the feeds stop at their next frame and send END; the receivers then finish.
  logger("hdstream")->info("demo: {} {} feeds over loopback tcp into --output {} for {} (Ctrl-C ends it)",
                           options.streams, options.format, output_spec,
                           options.duration.count() ? format_duration(options.duration)
                                                    : std::string("ever"));
  runtime.start_stats(options.common.interval, [&] {
    if (options.common.stats_format == StatsFormat::json) output.report().interval(sent.sample());
    output.report().interval(received.sample());
  });
  senders.start();
  runtime.run();
  receivers->finish_media();

  const Summary send_summary = summarize(sent.sample());
  const Snapshot last_received = received.sample();
  const Summary recv_summary = summarize(last_received);
  output.report().media(last_received);
  output.report().summary(send_summary);
  output.report().summary(recv_summary);
  Summary both = recv_summary;
  both.pass = send_summary.pass && recv_summary.pass;
  return exit_code_for(both, runtime.interrupted(), senders.failures() > 0);
}

}  // namespace hdstream
