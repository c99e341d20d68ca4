#include "pipeline/recorder.hpp"

#include <optional>

#include "common/log.hpp"
#include "media/file_writer.hpp"
#include "media/media_error.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("media");
}
}  // namespace

Recorder::Recorder(std::uint16_t stream, const Hello& hello, std::string pattern,
                   std::size_t queue_frames, StreamCounters& counters)
    : stream_(stream),
      hello_(hello),
      pattern_(std::move(pattern)),
      counters_(counters),
      queue_(queue_frames) {
  worker_ = std::jthread([this] { run(); });
}

Recorder::~Recorder() {
  finish();
}

void Recorder::push(const FramePtr& frame) {
  if (queue_.push_drop_oldest(frame)) {
    counters_.dropped_before_record.fetch_add(1, std::memory_order_relaxed);
  }
}

void Recorder::finish() {
  queue_.close();
  if (worker_.joinable()) worker_.join();
}

void Recorder::run() {
  // A file that cannot be opened is logged; the feed's other outputs and the network carry on.
  std::optional<FileWriter> writer;
  try {
    writer.emplace(substitute_stream(pattern_, stream_), hello_.feed);
    log()->info("stream {}: recording to {}", stream_, writer->path());
  } catch (const MediaError& error) {
    log()->error("stream {}: --output file:{}: {}; the feed's other outputs continue", stream_,
                 pattern_, error.what());
  }
  while (FramePtr frame = queue_.pop_wait()) {
    if (!writer) continue;  // drained all the same, so that finish() never waits on a full queue
    try {
      writer->write(frame->data, static_cast<std::int64_t>(frame->seq - hello_.first_frame_seq));
      counters_.frames_recorded.fetch_add(1, std::memory_order_relaxed);
    } catch (const MediaError& error) {
      log()->error("stream {}: {}; recording stops", stream_, error.what());
      writer.reset();
    }
  }
  if (!writer) return;
  try {
    writer->finish();
    log()->info("stream {}: {} frames recorded in {}", stream_, writer->frames_written(),
                writer->path());
  } catch (const MediaError& error) {
    log()->error("stream {}: {}", stream_, error.what());
  }
}

}  // namespace hdstream
