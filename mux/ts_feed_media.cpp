#include "mux/ts_feed_media.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

extern "C" {
#include <libavformat/avformat.h>
}

#include "common/clock.hpp"
#include "common/log.hpp"
#include "media/gst_audio_sink.hpp"
#include "media/media_error.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("ts");
}

// The TS's time zero (its first timestamp, either stream) in `time_base`.
std::int64_t origin_in(const AVFormatContext& input, AVRational time_base) {
  if (input.start_time == AV_NOPTS_VALUE) return 0;
  return av_rescale_q(input.start_time, AV_TIME_BASE_Q, time_base);
}

// 302M and AAC at 48 kHz on a 90 kHz PTS clock: a packet's start rounds to within a sample.
constexpr std::int64_t kSameSampleSlack = 2;

}  // namespace

TsFeedMedia::TsFeedMedia(std::uint16_t stream, const AVFormatContext& input, int video, int audio,
                         const MediaOutput& output, StreamCounters& counters)
    : stream_(stream),
      input_(input),
      video_(video),
      audio_(audio),
      counters_(counters),
      heard_by_(output.heard) {
  counters_.media.store(true, std::memory_order_relaxed);
  counters_.audio_channels.store(0, std::memory_order_relaxed);  // until a sound decodes
  counters_.audio_heard.store(true, std::memory_order_relaxed);
  if (output.on_screens()) {
    log()->warn("stream {}: MPEG-TS pictures are counted and recorded, not shown on screens",
                stream_);
  }
  if (audio_ >= 0) {
    try {
      decoder_.emplace(*input.streams[audio_]);
      format_ = decoder_->format();
    } catch (const MediaError& error) {
      log()->error("stream {}: {}; the sound is left out", stream_, error.what());
      audio_ = -1;
    }
  }
  if (format_) {
    counters_.audio_channels.store(format_->channels, std::memory_order_relaxed);
    watch_.emplace(*format_, AudioWatchOptions{.silent_after = output.silence_alarm});
    counters_.sound_levels.set(watch_->levels());  // a meter a pair from the start
    try {
      speaker_ = std::make_unique<GstAudioSink>(output.audio_output, *format_);
      log()->info("stream {}: {} sound ({} channels, {}-bit) to {}", stream_,
                  decoder_->codec_name(), format_->channels, format_->bits,
                  speaker_->description());
    } catch (const MediaError& error) {
      log()->error("stream {}: {}; the sound is still recorded", stream_, error.what());
    }
  }
  for (const auto& target : output.targets) {
    if (target.kind != OutputTarget::Kind::file) continue;
    // Each session of a TS is its own recording: a reconnecting caller's TS has its own clock
    // and may carry other codecs, so it goes on in the next numbered file (never over the last).
    const std::string path =
        output.recording_names->claim(substitute_stream(target.file_pattern, stream_));
    try {
      if (path.empty()) throw MediaError("no free file name for " + target.file_pattern);
      recordings_.push_back(std::make_unique<TsRecording>(path, *input.streams[video_],
                                                          format_.value_or(AudioFormat{})));
      log()->info("stream {}: recording to {}", stream_, path);
    } catch (const MediaError& error) {
      log()->error("stream {}: {}", stream_, error.what());
      RecordingNames::give_back(path);
    }
  }
}

TsFeedMedia::~TsFeedMedia() {
  finish();
}

void TsFeedMedia::record(const std::function<void(TsRecording&)>& write) {
  for (auto& recording : recordings_) {
    if (!recording) continue;
    try {
      write(*recording);
    } catch (const MediaError& error) {
      // A full disk ends that recording (finalized, playable up to here), not the others.
      log()->error("stream {}: {}; the recording stops here", stream_, error.what());
      try {
        recording->finish();
      } catch (const MediaError&) {
      }
      recording.reset();
    }
  }
}

void TsFeedMedia::packet(const AVPacket& packet) {
  if (finished_) return;
  if (packet.stream_index == video_) {
    const std::int64_t origin = origin_in(input_, input_.streams[video_]->time_base);
    record([&](TsRecording& file) {
      if (file.write_video(packet, origin))
        counters_.frames_recorded.fetch_add(1, std::memory_order_relaxed);
    });
    return;
  }
  if (packet.stream_index != audio_ || !decoder_) return;
  try {
    if (!decoder_->decode(
            packet, [&](std::span<const std::byte> pcm, std::int64_t pts) { play(pcm, pts); })) {
      counters_.decode_errors.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (const std::exception& error) {
    // A sound libavcodec or libswresample cannot go on with: the rest of the session is
    // without it (and the network thread, and every other feed, go on).
    log()->error("stream {}: {}; the rest of this session is without sound", stream_, error.what());
    decoder_.reset();
  }
}

// One run of decoded samples: placed on the recording's clock by its PTS, a gap before it
// filled with silence.
void TsFeedMedia::play(std::span<const std::byte> pcm, std::int64_t pts) {
  const std::int64_t now_ns = steady_clock_ns();
  const AVRational time_base = input_.streams[audio_]->time_base;
  const AVRational per_sample{1, static_cast<int>(kAudioSampleRate)};
  std::int64_t sample = next_sample_.value_or(0);
  if (pts != AV_NOPTS_VALUE) {
    sample = std::max<std::int64_t>(
        av_rescale_q(pts - origin_in(input_, time_base), time_base, per_sample), 0);
  }
  if (next_sample_) {
    const std::int64_t missing = sample - *next_sample_;
    if (missing > kSameSampleSlack) {
      counters_.audio_gaps.fetch_add(1, std::memory_order_relaxed);
      counters_.audio_silence_samples.fetch_add(static_cast<std::uint64_t>(missing),
                                                std::memory_order_relaxed);
      // Recorded as silence no longer than the time since the last sound, and at most a
      // second: a TS whose clock jumps ahead packet after packet must not make us write faster
      // than real time, nor hours at once.
      const std::int64_t passed =
          av_rescale(now_ns - last_sound_ns_, kAudioSampleRate, 1'000'000'000);
      const std::int64_t silence = std::min<std::int64_t>(
          {missing, std::int64_t{kAudioSampleRate}, std::max<std::int64_t>(passed, 0)});
      quiet_.assign(static_cast<std::size_t>(silence) * format_->bytes_per_sample(), std::byte{0});
      const std::int64_t from = *next_sample_;
      record([&](TsRecording& file) { file.write_audio(quiet_, from); });
      if (speaker_) {
        speaker_->play_silence(static_cast<std::uint64_t>(from),
                               static_cast<std::uint64_t>(missing));
      }
    } else {
      sample = *next_sample_;  // the same clock, rounded by the 90 kHz PTS, or an overlap
    }
  }
  const auto samples = static_cast<std::int64_t>(pcm.size() / format_->bytes_per_sample());
  next_sample_ = sample + samples;
  last_sound_ns_ = now_ns;
  counters_.sound_levels.set(watch_->observe(pcm, now_ns));
  record([&](TsRecording& file) { file.write_audio(pcm, sample); });
  if (speaker_) {
    // With a program output, only the feed on air is heard.
    const bool heard = !heard_by_ || heard_by_(stream_);
    if (heard != heard_) {
      heard_ = heard;
      speaker_->set_heard(heard);
      counters_.audio_heard.store(heard, std::memory_order_relaxed);
    }
    speaker_->play(pcm, static_cast<std::uint64_t>(sample));
    count_played();
  }
}

void TsFeedMedia::count_played() {
  const std::uint64_t played = speaker_->samples_played();
  counters_.audio_samples_played.fetch_add(played - played_counted_, std::memory_order_relaxed);
  played_counted_ = played;
}

void TsFeedMedia::finish() {
  if (std::exchange(finished_, true)) return;
  if (speaker_) {
    speaker_->finish();
    count_played();
    log()->info("stream {}: {} samples of sound played", stream_, speaker_->samples_played());
  }
  record([](TsRecording& file) { file.finish(); });
}

}  // namespace hdstream
