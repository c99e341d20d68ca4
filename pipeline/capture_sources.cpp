#include "pipeline/capture_sources.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "common/log.hpp"
#include "media/file_audio_reader.hpp"
#include "media/file_reader.hpp"
#include "media/formats.hpp"
#include "media/gst_audio_source.hpp"
#include "media/gst_frame_source.hpp"
#include "media/media_error.hpp"
#include "media/sample_clip.hpp"
#include "media/video_encoder.hpp"
#include "pipeline/frame_queue.hpp"
#include "protocol/audio_block.hpp"

namespace hdstream {
namespace {

// A clip read frame by frame on the feed's strand: a read from the page cache takes tens of
// microseconds, and reading in step with the pacer keeps the loop exact (frame n = packet n).
// A clip with sound carries, in each frame, the samples the frame clock gives it
// (protocol/audio_block.hpp), read from the clip's audio track as stored; the sound starts over
// with the picture. `own_sound` false: the picture alone (the sound comes from elsewhere, or
// none is wanted).
class FileSource : public FrameSource {
 public:
  FileSource(const std::string& path, const FeedDescriptor& preset, std::uint16_t stream,
             bool own_sound)
      : reader_(path, preset),
        sound_(own_sound ? FileAudioReader::open_if_any(path) : nullptr),
        feed_(reader_.feed()),
        stream_(stream) {
    if (sound_) feed_ = with_sound(feed_, sound_->format());
  }

  const FeedDescriptor& feed() const { return feed_; }

  FramePtr next_frame(std::uint64_t seq) override {
    if (failed_) return nullptr;
    // Sized as the last picture was, so that reading one of the same size into the recycled
    // buffer writes each byte once (a vector grown from empty zeroes it first).
    FramePtr frame = pool_.acquire(picture_bytes_);
    try {
      reader_.read(frame->data);
      picture_bytes_ = frame->data.size();
      if (sound_) {
        if (reader_.loops() != loops_) {
          loops_ = reader_.loops();
          sound_->rewind();
        }
        pcm_.clear();
        sound_->read(audio_samples_in_frame(feed_, seq), pcm_);
        append_audio_block(frame->data, feed_.audio, audio_sample_at(feed_, seq), pcm_);
      }
    } catch (const MediaError& error) {
      logger("source")->error("stream {}: {}", stream_, error.what());
      failed_ = true;
      return nullptr;
    }
    frame->stream_id = stream_;
    frame->seq = seq;
    return frame;
  }
  bool ended() const override { return failed_; }

 private:
  FileReader reader_;
  std::unique_ptr<FileAudioReader> sound_;  // null: a silent clip
  FeedDescriptor feed_;
  std::uint16_t stream_;
  FramePool pool_;
  std::size_t picture_bytes_ = 0;
  std::vector<std::byte> pcm_;
  std::uint64_t loops_ = 0;
  bool failed_ = false;
};

// Raw frames from GStreamer on its own thread, encoded there (DNxHD) or copied as they are,
// into a short queue the pacer takes from. A full queue holds the capture thread back, so a
// file-like source runs at the feed rate and a live one drops inside GStreamer.
class GstSource : public FrameSource {
 public:
  GstSource(const std::string& description, const FeedDescriptor& feed, std::uint16_t stream)
      : feed_(feed), stream_(stream), capture_(description, feed), queue_(3) {
    if (is_compressed(feed.codec)) encoder_.emplace(feed);
  }
  ~GstSource() override {
    queue_.close();
    capture_.stop();
  }

  void start() override {
    capture_.start(
        [this](const Picture& picture, std::span<const std::byte> packed) {
          std::span<const std::byte> bytes = packed;
          if (encoder_) {
            try {
              bytes = encoder_->encode(picture);
            } catch (const MediaError& error) {
              logger("source")->error("stream {}: {}", stream_, error.what());
              return false;
            }
          }
          FramePtr frame = pool_.acquire(bytes.size());
          std::memcpy(frame->data.data(), bytes.data(), bytes.size());
          frame->stream_id = stream_;
          return queue_.push_wait(std::move(frame));
        },
        [this](const std::string&) {
          ended_ = true;
          queue_.close();
        });
    // The first picture takes a moment (caps negotiation, first encode): have it ready before
    // the pacer's first tick, or the feed would open with a missing frame.
    if (!queue_.wait_not_empty(std::chrono::seconds(10))) {
      logger("source")->warn("stream {}: no frame from the source after 10 s", stream_);
    }
  }

  FramePtr next_frame(std::uint64_t seq) override {
    FramePtr frame = queue_.try_pop();
    if (frame) frame->seq = seq;
    return frame;
  }
  bool ended() const override { return ended_ && queue_.depth() == 0; }

 private:
  FeedDescriptor feed_;
  std::uint16_t stream_;
  GstFrameSource capture_;
  std::optional<VideoEncoder> encoder_;
  FrameQueue queue_;
  FramePool pool_;
  std::atomic<bool> ended_{false};
};

// A picture source with its sound from a GStreamer description (--audio-source): each frame
// gets the samples the frame clock gives it. The sound is read for every frame, also one the
// picture source missed, so that it stays in real time (the receiver fills that gap).
class WithSound : public FrameSource {
 public:
  WithSound(std::unique_ptr<FrameSource> picture, std::unique_ptr<GstAudioSource> sound,
            const FeedDescriptor& feed)
      : picture_(std::move(picture)), sound_(std::move(sound)), feed_(feed) {}

  void start() override {
    sound_->start(audio_samples_in_frame(feed_, 0));
    picture_->start();
  }
  FramePtr next_frame(std::uint64_t seq) override {
    FramePtr frame = picture_->next_frame(seq);
    const std::uint32_t samples = audio_samples_in_frame(feed_, seq);
    if (std::exchange(first_, false)) sound_->keep_newest(samples);  // sound from now on
    pcm_.clear();
    sound_->read(samples, pcm_);
    if (frame) append_audio_block(frame->data, feed_.audio, audio_sample_at(feed_, seq), pcm_);
    return frame;
  }
  bool ended() const override { return picture_->ended(); }

 private:
  std::unique_ptr<FrameSource> picture_;
  std::unique_ptr<GstAudioSource> sound_;
  FeedDescriptor feed_;
  std::vector<std::byte> pcm_;
  bool first_ = true;
};

std::string sound_summary(const FeedDescriptor& feed, const SoundSpec& sound) {
  if (!feed.audio.present()) return "";
  const std::string from =
      sound.from_gstreamer() ? fmt::format(" from '{}'", sound.description) : std::string();
  return fmt::format(", {} channels of {}-bit sound{}", feed.audio.channels, feed.audio.bits, from);
}

}  // namespace

FeedDescriptor with_sound(FeedDescriptor feed, const AudioFormat& audio) {
  feed.audio = audio;
  // The rate counts the sound too: every frame's PCM and trailer.
  const double block_bytes = static_cast<double>(audio.sample_rate) * feed.frame_rate_den /
                                 feed.frame_rate_num * audio.bytes_per_sample() +
                             kAudioTrailerBytes;
  feed.bit_rate_bps +=
      static_cast<std::uint64_t>(std::llround(block_bytes * 8 * feed.frames_per_second()));
  return feed;
}

FeedSource make_media_source(const std::string& spec, const SoundSpec& sound, std::uint16_t stream,
                             const FeedDescriptor& preset) {
  FeedSource made = make_picture_source(spec, sound, stream, preset);
  if (!sound.from_gstreamer()) return made;
  try {
    auto gst = std::make_unique<GstAudioSource>(sound.description,
                                                AudioFormat{sound.channels, 24, kAudioSampleRate});
    made.feed = with_sound(made.feed, gst->format());
    made.source = std::make_unique<WithSound>(std::move(made.source), std::move(gst), made.feed);
  } catch (const MediaError& error) {
    throw SpecError(fmt::format("--audio-source (stream {}): {}", stream, error.what()));
  }
  made.summary += sound_summary(made.feed, sound);
  return made;
}

FeedSource make_picture_source(const std::string& spec, const SoundSpec& sound,
                               std::uint16_t stream, const FeedDescriptor& preset) {
  const std::string where = fmt::format("--source (stream {})", stream);
  try {
    std::string path;
    if (spec == "bars") {
      path = cached_sample_clip(preset, stream).string();  // each feed labelled
    } else if (spec.rfind("file:", 0) == 0) {
      path = spec.substr(5);
      if (path.empty()) throw SpecError(where + ": file: needs a path (file:PATH)");
    }
    if (!path.empty()) {
      // A clip's own sound unless --audio-source says otherwise.
      auto file = std::make_unique<FileSource>(path, preset, stream, sound.description.empty());
      const FeedDescriptor feed = file->feed();
      if (feed.codec != preset.codec) {
        throw SpecError(
            fmt::format("{}: '{}' holds {} but the format is {}; pick the matching "
                        "--format or another file",
                        where, path, to_string(feed.codec), to_string(preset.codec)));
      }
      return {std::move(file), feed,
              fmt::format("file {} ({} {}x{} {:.2f} fps{}, sent as is)", path,
                          to_string(feed.codec), feed.width, feed.height, feed.frames_per_second(),
                          sound_summary(feed, sound))};
    }
    auto gst = std::make_unique<GstSource>(spec, preset, stream);
    return {std::move(gst), preset,
            fmt::format("GStreamer '{}' ({})", spec,
                        is_compressed(preset.codec) ? "encoded to DNxHD with libavcodec"
                                                    : "raw, sent as is")};
  } catch (const MediaError& error) {
    throw SpecError(fmt::format("{}: {}", where, error.what()));
  }
}

}  // namespace hdstream
