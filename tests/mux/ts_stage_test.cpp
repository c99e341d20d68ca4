// mux/TsStage with the real libavcodec and libavformat: frames in, MPEG-TS messages out; a
// feed's sound as SMPTE 302M (read back sample for sample by ffmpeg) or AAC (seen by ffprobe).
#include "mux/ts_stage.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <numeric>
#include <optional>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "mux/ts_encoder.hpp"
#include "protocol/audio_block.hpp"
#include "tests/support/process.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream {
namespace {

constexpr std::size_t kTsPacket = 188;

// UYVY 640x480 at 29.97: the VideoDecoder unpacks it, TsEncoder makes MPEG-2 4:2:2 of it.
FeedDescriptor uyvy_feed() {
  return FeedDescriptor{Codec::uyvy, 640, 480, 30000, 1001, 640 * 480 * 16 * 30};
}

Frame uyvy_frame(std::uint64_t seq) {
  Frame frame;
  frame.seq = seq;
  frame.data.resize(640 * 480 * 2);
  for (std::size_t i = 0; i < frame.data.size(); i += 2) {
    frame.data[i] = std::byte{128};                                            // U or V: grey
    frame.data[i + 1] = static_cast<std::byte>((i / 2 + seq * 7) % 220 + 16);  // Y: a ramp
  }
  return frame;
}

class TsStageTest : public ::testing::Test {
 protected:
  void open(bool accept = true) {
    accept_ = accept;
    stage_.prepare();
    stage_.open([this](std::span<const std::byte> message) {
      if (!accept_) return false;
      messages_.emplace_back(message.begin(), message.end());
      return true;
    });
  }
  std::uint64_t message_bytes() const {
    return std::accumulate(messages_.begin(), messages_.end(), std::uint64_t{0},
                           [](std::uint64_t sum, const auto& m) { return sum + m.size(); });
  }

  TsStage stage_{uyvy_feed(), TsSettings{kTsMinVideoRateBps}};
  std::vector<std::vector<std::byte>> messages_;
  bool accept_ = true;
};

TEST_F(TsStageTest, FramesBecomeWholeTsPacketsInSrtSizedMessages) {
  open();
  std::uint64_t bytes = 0;
  for (std::uint64_t seq = 0; seq < 5; ++seq) bytes += stage_.push(uyvy_frame(seq));
  EXPECT_GT(bytes, 0u);
  bytes += stage_.finish();
  ASSERT_FALSE(messages_.empty());
  EXPECT_EQ(bytes, message_bytes());  // what the stage counts is what went on the wire
  for (const auto& message : messages_) {
    ASSERT_EQ(message.size() % kTsPacket, 0u);
    ASSERT_LE(message.size(), static_cast<std::size_t>(stage_.message_bytes()));
    for (std::size_t at = 0; at < message.size(); at += kTsPacket) {
      ASSERT_EQ(message[at], std::byte{0x47}) << "TS sync byte";
    }
  }
  // The first message carries the PAT (PID 0), as a demuxer joining the stream needs.
  const auto& first = messages_.front();
  bool pat = false;
  for (std::size_t at = 0; at < first.size(); at += kTsPacket) {
    const int pid =
        (std::to_integer<int>(first[at + 1]) & 0x1f) << 8 | std::to_integer<int>(first[at + 2]);
    pat = pat || pid == 0;
  }
  EXPECT_TRUE(pat);
  EXPECT_EQ(stage_.message_bytes(), kSrtTsPayloadBytes);
}

TEST_F(TsStageTest, AFrameThatDoesNotDecodeCostsOnlyThatFrame) {
  open();
  Frame short_frame = uyvy_frame(0);
  short_frame.data.resize(short_frame.data.size() / 2);  // half a picture: not a UYVY frame
  try {
    stage_.push(short_frame);
    FAIL() << "half a picture was accepted";
  } catch (const StageError& error) {
    EXPECT_TRUE(error.frame_only()) << error.what();
    EXPECT_NE(std::string(error.what()).find("--mux ts: "), std::string::npos) << error.what();
  }
  EXPECT_GT(stage_.push(uyvy_frame(1)), 0u);  // the decoder goes on with the next frame
}

TEST_F(TsStageTest, ASendThatFailsEndsTheFeed) {
  open(/*accept=*/false);
  try {
    for (std::uint64_t seq = 0; seq < 5; ++seq) stage_.push(uyvy_frame(seq));
    stage_.finish();
    FAIL() << "no send failure surfaced";
  } catch (const StageError& error) {
    EXPECT_FALSE(error.frame_only()) << error.what();
  }
  EXPECT_TRUE(messages_.empty());
}

TEST_F(TsStageTest, TheWireRateCoversTsOverheadAboveTheVideoRate) {
  EXPECT_EQ(stage_.planned_rate_bps(), kTsMinVideoRateBps);  // no sound: the video's rate
  EXPECT_GT(stage_.wire_rate_bps(), kTsMinVideoRateBps);
  EXPECT_LT(stage_.wire_rate_bps(), kTsMinVideoRateBps * 12 / 10);
  EXPECT_NE(stage_.describe().find("640x480"), std::string::npos) << stage_.describe();
}

using namespace std::chrono_literals;

// The uyvy feed with `channels` of 24-bit sound, and its frames: each a picture, then the
// sound of its frame period (a different ramp per channel, so a swapped or shifted channel
// shows), then the trailer.
FeedDescriptor sound_feed(int channels) {
  FeedDescriptor feed = uyvy_feed();
  feed.audio = AudioFormat{static_cast<std::uint8_t>(channels), 24, kAudioSampleRate};
  return feed;
}

std::vector<std::byte> sound_of(const FeedDescriptor& feed, std::uint64_t seq) {
  const std::uint64_t first = audio_sample_at(feed, seq);
  const std::uint32_t samples = audio_samples_in_frame(feed, seq);
  std::vector<std::byte> pcm;
  for (std::uint64_t n = first; n < first + samples; ++n) {
    for (int c = 0; c < feed.audio.channels; ++c) {
      const auto value = static_cast<std::uint32_t>((n * 977 + c * 100'003) % 0xFFFFFF);
      for (int b = 0; b < 3; ++b) pcm.push_back(static_cast<std::byte>(value >> (8 * b)));
    }
  }
  return pcm;
}

Frame sound_frame(const FeedDescriptor& feed, std::uint64_t seq) {
  Frame frame = uyvy_frame(seq);
  append_audio_block(frame.data, feed.audio, audio_sample_at(feed, seq), sound_of(feed, seq));
  return frame;
}

// Pushes `frames` frames of `feed` through a stage into `ts` (a file), but for frame `skip`
// (a frame the sender never had), returning the sound sent.
std::vector<std::byte> write_ts(const FeedDescriptor& feed, TsAudio codec, std::uint64_t frames,
                                const std::filesystem::path& ts,
                                std::optional<std::uint64_t> skip = std::nullopt) {
  TsStage stage(feed, TsSettings{kTsMinVideoRateBps, codec});
  std::ofstream out(ts, std::ios::binary);
  stage.prepare();
  stage.open([&](std::span<const std::byte> message) {
    out.write(reinterpret_cast<const char*>(message.data()),
              static_cast<std::streamsize>(message.size()));
    return true;
  });
  std::vector<std::byte> sound;
  for (std::uint64_t seq = 0; seq < frames; ++seq) {
    if (seq == skip) continue;
    stage.push(sound_frame(feed, seq));
    const auto pcm = sound_of(feed, seq);
    sound.insert(sound.end(), pcm.begin(), pcm.end());
  }
  stage.finish();
  return sound;
}

// ffprobe's view of a file's first audio stream.
nlohmann::json probe_audio(const std::filesystem::path& file, const std::filesystem::path& dir) {
  test::Process ffprobe({"/usr/bin/ffprobe", "-v", "error", "-select_streams", "a:0",
                         "-show_streams", "-count_packets", "-of", "json", file.string()},
                        dir, "ffprobe");
  if (ffprobe.wait(60s) != 0) return {};
  auto streams = nlohmann::json::parse(ffprobe.out())["streams"];
  return streams.empty() ? nlohmann::json{} : streams[0];
}

TEST(TsStageSound, GoesAsSmpte302mThatFfmpegDecodesSampleForSample) {
  const auto dir = test::scratch_dir("ts-stage-302m");
  const FeedDescriptor feed = sound_feed(8);
  const auto sent = write_ts(feed, TsAudio::s302m, 30, dir / "feed.ts");
  const auto stream = probe_audio(dir / "feed.ts", dir);
  ASSERT_FALSE(stream.is_null()) << test::read_file(dir / "ffprobe.err");
  EXPECT_EQ(stream["codec_name"], "s302m");
  EXPECT_EQ(stream["channels"], 8);
  EXPECT_EQ(stream["sample_rate"], "48000");
  EXPECT_EQ(stream["bits_per_raw_sample"], "24");
  EXPECT_EQ(stream["nb_read_packets"], "30");  // one packet a frame

  test::Process ffmpeg({"/usr/bin/ffmpeg", "-v", "error", "-y", "-i", (dir / "feed.ts").string(),
                        "-map", "0:a:0", "-f", "s24le", (dir / "sound.pcm").string()},
                       dir, "ffmpeg");
  ASSERT_EQ(ffmpeg.wait(60s), 0) << ffmpeg.err();
  const std::string decoded = test::read_file(dir / "sound.pcm");
  ASSERT_EQ(decoded.size(), sent.size());  // 30 frames: 48,048 samples x 8 channels x 3 bytes
  EXPECT_EQ(std::memcmp(decoded.data(), sent.data(), sent.size()), 0);
}

TEST(TsStageSound, GoesAsAacWhereAsked) {
  const auto dir = test::scratch_dir("ts-stage-aac");
  const FeedDescriptor feed = sound_feed(2);
  write_ts(feed, TsAudio::aac, 30, dir / "feed.ts");
  const auto stream = probe_audio(dir / "feed.ts", dir);
  ASSERT_FALSE(stream.is_null()) << test::read_file(dir / "ffprobe.err");
  EXPECT_EQ(stream["codec_name"], "aac");
  EXPECT_EQ(stream["profile"], "LC");
  EXPECT_EQ(stream["channels"], 2);
  EXPECT_EQ(stream["sample_rate"], "48000");
  // 48,048 samples and the encoder's 1024 of priming delay in 1024-sample packets: 46.9 + 1,
  // the last padded.
  EXPECT_EQ(stream["nb_read_packets"], "48");
}

// A frame that never came is silence in AAC's packets, so the ones after it keep the picture's
// clock: as many packets as without the gap (AAC's 1024 samples never line up with a frame's
// 1601/1602, so a fifo that ignored the gap would run a frame early from there on).
TEST(TsStageSound, AFrameThatNeverCameKeepsAacOnThePicturesClock) {
  const auto dir = test::scratch_dir("ts-stage-aac-gap");
  const FeedDescriptor feed = sound_feed(2);
  write_ts(feed, TsAudio::aac, 30, dir / "feed.ts", /*skip=*/10);
  const auto stream = probe_audio(dir / "feed.ts", dir);
  ASSERT_FALSE(stream.is_null()) << test::read_file(dir / "ffprobe.err");
  EXPECT_EQ(stream["nb_read_packets"], "48");  // as 30 frames without a gap
  test::Process ffprobe(
      {"/usr/bin/ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts",
       "-of", "csv=p=0", (dir / "feed.ts").string()},
      dir, "pts");
  ASSERT_EQ(ffprobe.wait(60s), 0);
  std::istringstream lines(ffprobe.out());
  std::vector<std::int64_t> pts;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      pts.push_back(std::stoll(line));  // "16080," when the packet has side data
    }
  }
  ASSERT_EQ(pts.size(), 48u);
  // Every packet 1024 samples (1920 ticks of 90 kHz) after the one before: no jump, no overlap.
  for (std::size_t i = 1; i < pts.size(); ++i) EXPECT_EQ(pts[i] - pts[i - 1], 1920) << i;
}

TEST(TsStageSound, TheRateCountsTheSoundAndTheDescriptionNamesIt) {
  const TsStage pcm(sound_feed(8), TsSettings{kTsMinVideoRateBps, TsAudio::s302m});
  EXPECT_EQ(pcm.planned_rate_bps(), kTsMinVideoRateBps + 48'000 * 8 * 28);  // 10.75 Mb/s of AES3
  EXPECT_NE(pcm.describe().find("8 channels of sound as SMPTE 302M"), std::string::npos)
      << pcm.describe();
  const TsStage aac(sound_feed(2), TsSettings{kTsMinVideoRateBps, TsAudio::aac});
  EXPECT_EQ(aac.planned_rate_bps(), kTsMinVideoRateBps + 128'000);
}

TEST(TsStageSound, AFrameWhoseSoundIsNotTheClocksCostsThatFrameOnly) {
  const auto dir = test::scratch_dir("ts-stage-bad-sound");
  const FeedDescriptor feed = sound_feed(2);
  TsStage stage(feed, TsSettings{kTsMinVideoRateBps});
  stage.prepare();
  stage.open([](std::span<const std::byte>) { return true; });
  Frame wrong = sound_frame(feed, 1);
  wrong.seq = 2;  // frame 1's sound under frame 2's number
  stage.push(sound_frame(feed, 0));
  try {
    stage.push(wrong);
    FAIL() << "a frame with another frame's sound was accepted";
  } catch (const StageError& error) {
    EXPECT_TRUE(error.frame_only()) << error.what();
    EXPECT_NE(std::string(error.what()).find("--mux ts: "), std::string::npos) << error.what();
  }
  EXPECT_GT(stage.push(sound_frame(feed, 3)), 0u);
}

}  // namespace
}  // namespace hdstream
