#include "pipeline/media_feed.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "media/audio_watch.hpp"
#include "media/gst_audio_sink.hpp"
#include "media/media_error.hpp"
#include "media/picture_watch.hpp"
#include "media/sync_marker.hpp"
#include "media/video_decoder.hpp"
#include "pipeline/media_sources.hpp"
#include "protocol/audio_block.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("media");
}
constexpr std::uint64_t kMaxErrorLines = 10;  // per feed: a broken feed must not flood the log

// The frame can lend `picture`, its first bytes, to its decoder: a pooled buffer's slack
// follows the picture within the allocation (a picture scaler may read a block past its last row).
bool lendable(const Frame& frame, std::span<const std::byte> picture) {
  return !picture.empty() && picture.data() == frame.data.data() &&
         frame.data.capacity() - picture.size() >= kFrameSlackBytes;
}
}  // namespace

// A feed with sound: where it plays (none when the device does not open; it is still recorded).
std::unique_ptr<GstAudioSink> MediaFeed::open_speaker(std::uint16_t stream,
                                                      const AudioFormat& audio,
                                                      const std::string& device) {
  if (!audio.present()) return nullptr;
  try {
    auto speaker = std::make_unique<GstAudioSink>(device, audio);
    log()->info("stream {}: sound ({} channels) to {}", stream, audio.channels,
                speaker->description());
    return speaker;
  } catch (const MediaError& error) {
    log()->error("stream {}: {}; the sound is still recorded", stream, error.what());
    return nullptr;
  }
}

MediaFeed::MediaFeed(std::uint16_t stream, const Hello& hello, const MediaOutput& output,
                     StreamCounters& counters)
    : stream_(stream),
      hello_(hello),
      output_(output),
      counters_(counters),
      sound_until_seq_(hello.first_frame_seq),
      speaker_(open_speaker(stream, hello.feed.audio, output.audio_output)),
      // Pictures wait for their sound in the decode queue: twice the room where a speaker plays.
      queue_(speaker_ ? 2 * output.queue_frames : output.queue_frames) {
  counters_.decode_queue_capacity.store(static_cast<std::uint32_t>(queue_.capacity()),
                                        std::memory_order_relaxed);
  counters_.media.store(true, std::memory_order_relaxed);
  counters_.audio_channels.store(hello.feed.audio.channels, std::memory_order_relaxed);
  counters_.audio_heard.store(true, std::memory_order_relaxed);  // until the first frame says
  if (hello.feed.audio.present()) {
    audio_watch_.emplace(hello.feed.audio,
                         AudioWatchOptions{.silent_after = output_.silence_alarm});
    // A meter for each pair from the start: the levels always match the channels published.
    counters_.sound_levels.set(audio_watch_->levels());
  }
  for (const auto& target : output_.targets) {
    if (target.kind != OutputTarget::Kind::file) continue;
    recorders_.push_back(
        std::make_unique<Recorder>(stream, hello, target.file_pattern, output_.recording_names,
                                   output_.record_queue_for(hello.feed), counters));
  }
  worker_ = std::jthread([this] { run(); });
}

MediaFeed::~MediaFeed() {
  finish();
}

void MediaFeed::push(FramePtr frame) {
  if (hello_.feed.audio.present() && !accept_sound(*frame)) return;
  for (auto& recorder : recorders_) recorder->push(frame);
  if (queue_.push_drop_oldest(std::move(frame))) {
    counters_.dropped_before_decode.fetch_add(1, std::memory_order_relaxed);
    counters_.drops.fetch_add(1, std::memory_order_relaxed);
  }
  counters_.decode_queue_depth.store(static_cast<std::uint32_t>(queue_.depth()),
                                     std::memory_order_relaxed);
}

bool MediaFeed::accept_sound(const Frame& frame) {
  const FeedDescriptor& feed = hello_.feed;
  const AudioBlock block = split_audio_block(frame.data, feed, frame.seq);
  if (!block.error.empty()) {
    // Verified bytes that are no frame of this feed: a sender's fault, not the network's. Its
    // sound is part of the gap the next frame that comes closes.
    counters_.decode_errors.fetch_add(1, std::memory_order_relaxed);
    if (sound_errors_logged_++ < kMaxErrorLines) {
      log()->warn("stream {}: frame {} refused: {}", stream_, frame.seq, block.error);
    }
    return false;
  }
  // Sound that never came (frames lost, late or refused since the last one that did): one gap,
  // filled with silence of exactly its length, here for the speaker, in the recordings by them.
  const std::uint64_t expected = sound_until_seq_;
  if (audio_watch_) counters_.sound_levels.set(audio_watch_->observe(block.pcm, steady_clock_ns()));
  if (frame.seq < expected) return true;  // an older sender's session: its sound is not played
  const std::uint64_t missing = audio_sample_at(feed, frame.seq) - audio_sample_at(feed, expected);
  if (missing > 0) {
    counters_.audio_gaps.fetch_add(1, std::memory_order_relaxed);
    counters_.audio_silence_samples.fetch_add(missing, std::memory_order_relaxed);
  }
  sound_until_seq_ = frame.seq + 1;
  if (speaker_) {
    // The program's sound follows its cut: the feed on air is heard, the others play muted.
    const bool heard = !output_.heard || output_.heard(stream_);
    if (heard != heard_) {
      heard_ = heard;
      speaker_->set_heard(heard);
      counters_.audio_heard.store(heard, std::memory_order_relaxed);
    }
    speaker_->play_silence(block.first_sample - missing, missing);
    // Its picture waits behind those queued before it: each a decode (at most half a second:
    // the sink's clock never runs more than a second ahead).
    const auto lead = std::chrono::nanoseconds(std::min<std::int64_t>(
        static_cast<std::int64_t>(queue_.depth() + 1) * decode_ns_.load(std::memory_order_relaxed),
        500'000'000));
    speaker_->play(block.pcm, block.first_sample, lead);
    // The sync marker's beep (media/sync_marker.hpp): where the sound first rises to its level.
    const auto onset = beep_onset(block.pcm, feed.audio);
    if (onset && !beeping_) {
      if (auto at = speaker_->plays_at_ns(block.first_sample + *onset)) {
        std::lock_guard lock(marker_mutex_);
        beep_ = Marker{frame.seq, *at};
      }
    }
    beeping_ = onset.has_value();
  }
  return true;
}

void MediaFeed::count_played() {
  // Cumulative for the stream, across its sessions' sinks.
  const std::uint64_t played = speaker_->samples_played();
  counters_.audio_samples_played.fetch_add(played - played_counted_, std::memory_order_relaxed);
  played_counted_ = played;
}

void MediaFeed::measure_av_offset(std::uint64_t seq, std::int64_t shown_ns) {
  std::optional<Marker> beep;
  {
    std::lock_guard lock(marker_mutex_);
    beep = beep_;
  }
  if (!beep || beep->seq != seq) return;  // a flash without its beep: no measure
  counters_.av_offset_us.store((beep->at_ns - shown_ns) / 1000, std::memory_order_relaxed);
  counters_.av_offset_measured.store(true, std::memory_order_relaxed);
}

void MediaFeed::close() {
  for (auto& recorder : recorders_) recorder->close();
  queue_.close();
}

void MediaFeed::finish() {
  close();
  for (auto& recorder : recorders_) recorder->finish();
  if (worker_.joinable()) worker_.join();
  if (speaker_ && !std::exchange(speaker_finished_, true)) {
    speaker_->finish();
    count_played();
    log()->info("stream {}: {} samples of sound played ({} resyncs)", stream_,
                speaker_->samples_played(), speaker_->resyncs());
  }
}

// A feed with sound shows each picture a playout delay before its sound plays, on the sound's
// clock: pictures that came early (a decoder ahead, a burst of the network after the sound's
// clock moved on) wait for it. Never longer than the decode queue's free room lasts (at a frame
// period a frame), so that waiting never costs a frame, nor once the feed is closing; a picture
// later than its time is shown at once, and the sound's clock moves on
// (GstAudioSink::picture_ready, told when the picture would have been ready without its wait in
// the decode queue: `queued_ns`).
void MediaFeed::hold_for_sound(std::uint64_t sample, std::int64_t queued_ns) {
  const std::int64_t ready_ns = steady_clock_ns();
  speaker_->picture_ready(sample, ready_ns - queued_ns);
  const auto plays = speaker_->plays_at_ns(sample);
  if (!plays) return;
  const std::int64_t show_ns = *plays - std::chrono::nanoseconds(kSoundPlayoutDelay).count();
  const auto room_frames =
      static_cast<std::int64_t>(queue_.capacity()) - static_cast<std::int64_t>(queue_.depth()) - 1;
  const auto frame_ns = static_cast<std::int64_t>(1e9 / hello_.feed.frames_per_second());
  const std::int64_t until_ns =
      ready_ns + std::min(show_ns - ready_ns, std::max<std::int64_t>(room_frames, 0) * frame_ns);
  constexpr std::int64_t kSlice = 5'000'000;  // a closing feed is noticed this soon
  for (std::int64_t now = ready_ns; now < until_ns && !queue_.closed(); now = steady_clock_ns()) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(until_ns - now, kSlice)));
  }
}

void MediaFeed::run() {
  const FeedDescriptor& feed = hello_.feed;
  // Everything that can fail to open fails here, on the worker, and is logged: the network
  // side keeps receiving (and counting) whatever happens to the decoder.
  std::optional<VideoDecoder> decoder;
  try {
    decoder.emplace(feed, output_.decoder_threads);
  } catch (const MediaError& error) {
    log()->error("stream {}: {}; its frames count as decode errors", stream_, error.what());
  }
  // The display layer's screens, tiles and thumbnails for this feed (none without Qt outputs).
  std::vector<std::shared_ptr<PictureSink>> sinks;
  if (output_.picture_sinks) sinks = output_.picture_sinks(stream_, hello_);
  PictureWatch watch;
  bool flashing = false;  // the last picture was the sync marker's flash

  std::uint64_t errors_logged = 0;
  while (FramePtr frame = queue_.pop_wait()) {
    counters_.decode_queue_depth.store(static_cast<std::uint32_t>(queue_.depth()),
                                       std::memory_order_relaxed);
    // When it came, on the steady clock (it carries the wall clock's), and when its decode
    // began: the time between is its wait in the decode queue.
    const std::int64_t decode_start_ns = steady_clock_ns();
    const std::int64_t arrived_ns =
        decode_start_ns - std::max<std::int64_t>(wall_clock_ns() - frame->arrival_ns, 0);
    if (output_.debug_decode_delay.count() > 0)
      std::this_thread::sleep_for(output_.debug_decode_delay);
    if (!decoder) {
      counters_.decode_errors.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const bool sound = feed.audio.present();
    const std::span<const std::byte> coded =
        sound ? split_audio_block(frame->data, feed, frame->seq).picture
              : std::span<const std::byte>(frame->data);
    const Picture* picture = nullptr;
    try {
      picture = &decoder->decode(coded, lendable(*frame, coded) ? frame : nullptr);
    } catch (const MediaError& error) {
      counters_.decode_errors.fetch_add(1, std::memory_order_relaxed);
      if (errors_logged++ < kMaxErrorLines) {
        log()->warn("stream {}: frame {} ({} bytes): {}", stream_, frame->seq, frame->data.size(),
                    error.what());
      }
      continue;
    }
    counters_.frames_decoded.fetch_add(1, std::memory_order_relaxed);
    // A decode's time, smoothed (gain 1/8): how long a queued picture takes to be ready.
    const std::int64_t took_ns = steady_clock_ns() - decode_start_ns;
    const std::int64_t was_ns = decode_ns_.load(std::memory_order_relaxed);
    decode_ns_.store(was_ns == 0 ? took_ns : was_ns + (took_ns - was_ns) / 8,
                     std::memory_order_relaxed);
    if (speaker_) count_played();
    counters_.decode_latency.add(wall_clock_ns() - frame->ready_ns);
    // The wire's fingerprint covers the sound too: with sound, the picture is hashed instead.
    const PictureFlags flags = watch.observe(*picture, steady_clock_ns(),
                                             sound ? std::nullopt : frame->content_fingerprint);
    counters_.frozen.store(flags.frozen, std::memory_order_relaxed);
    counters_.black.store(flags.black, std::memory_order_relaxed);
    if (speaker_) hold_for_sound(audio_sample_at(feed, frame->seq), decode_start_ns - arrived_ns);
    for (const auto& sink : sinks) sink->show(*picture, flags);
    // The sync marker's flash reached the sinks: the A/V offset is when its beep plays less
    // now (positive: the sound trails the picture).
    if (speaker_) {
      const std::int64_t shown_ns = steady_clock_ns();
      const bool white = looks_white(*picture);
      if (white && !flashing) measure_av_offset(frame->seq, shown_ns);
      flashing = white;
    }
  }
  counters_.decode_queue_depth.store(0, std::memory_order_relaxed);
  counters_.frozen.store(false, std::memory_order_relaxed);
  counters_.black.store(false, std::memory_order_relaxed);
}

}  // namespace hdstream
