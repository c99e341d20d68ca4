#include "pipeline/recorder.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "common/log.hpp"
#include "media/file_writer.hpp"
#include "media/media_error.hpp"
#include "pipeline/media_sources.hpp"
#include "protocol/audio_block.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("media");
}

// Writes `samples` of silence from `sample_index` on, a second at a time: a long outage must not
// make the recorder allocate its whole length.
void write_silence(FileWriter& writer, const AudioFormat& audio, std::uint64_t samples,
                   std::int64_t sample_index) {
  const std::vector<std::byte> second(std::size_t{audio.sample_rate} * audio.bytes_per_sample());
  while (samples > 0) {
    const std::uint64_t now = std::min<std::uint64_t>(samples, audio.sample_rate);
    writer.write_audio(std::span(second).first(now * audio.bytes_per_sample()), sample_index);
    sample_index += static_cast<std::int64_t>(now);
    samples -= now;
  }
}
}  // namespace

Recorder::Recorder(std::uint16_t stream, const Hello& hello, std::string pattern,
                   std::shared_ptr<RecordingNames> names, std::size_t queue_frames,
                   StreamCounters& counters)
    : stream_(stream),
      hello_(hello),
      pattern_(std::move(pattern)),
      names_(std::move(names)),
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
  const std::string path = names_->claim(substitute_stream(pattern_, stream_));
  try {
    if (path.empty()) throw MediaError("no free file name");
    writer.emplace(path, hello_.feed, FileLayout::recording);
    log()->info("stream {}: recording to {}", stream_, writer->path());
  } catch (const MediaError& error) {
    log()->error("stream {}: --output file:{}: {}; the feed's other outputs continue", stream_,
                 pattern_, error.what());
    RecordingNames::give_back(path);
  }
  // The sound is written on the feed's sample clock from the recording's first frame on; where
  // frames never came, silence of exactly their length keeps it in step with the picture.
  const FeedDescriptor& feed = hello_.feed;
  const std::uint64_t first_sample = audio_sample_at(feed, hello_.first_frame_seq);
  std::uint64_t next_sample = first_sample;
  std::int64_t last_arrival_ns = 0;  // of the last frame whose sound was written
  while (FramePtr frame = queue_.pop_wait()) {
    if (!writer) continue;  // drained all the same, so that finish() never waits on a full queue
    try {
      AudioBlock block;
      std::span<const std::byte> picture = frame->data;
      if (feed.audio.present()) {
        block = split_audio_block(frame->data, feed, frame->seq);
        if (!block.error.empty()) continue;  // refused (and counted) by MediaFeed::push
        picture = block.picture;
      }
      writer->write(picture, static_cast<std::int64_t>(frame->seq - hello_.first_frame_seq));
      if (feed.audio.present() && block.first_sample >= next_sample) {
        // A gap's silence is at most the time it took, and a second: a sender that skips ahead
        // by hours in one frame does not make the recording write hours of zeros (the sound's
        // timeline then jumps, as the picture's does).
        std::uint64_t silence = block.first_sample - next_sample;
        if (last_arrival_ns > 0 && frame->arrival_ns > last_arrival_ns) {
          const auto took = static_cast<std::uint64_t>(frame->arrival_ns - last_arrival_ns);
          const std::uint64_t cap =
              took / 1000 * feed.audio.sample_rate / 1'000'000 + feed.audio.sample_rate;
          if (silence > cap) {
            log()->warn(
                "stream {}: {} s of sound missing came in {:.1f} s: {:.1f} s of silence "
                "recorded, then the sound jumps",
                stream_, silence / feed.audio.sample_rate, took / 1e9,
                static_cast<double>(cap) / feed.audio.sample_rate);
            silence = cap;
          }
        }
        write_silence(*writer, feed.audio, silence,
                      static_cast<std::int64_t>(next_sample - first_sample));
        last_arrival_ns = frame->arrival_ns;
        writer->write_audio(block.pcm,
                            static_cast<std::int64_t>(block.first_sample - first_sample));
        next_sample = block.first_sample + block.samples;
      }
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
