// Sound across a lossy path: SRT at 100 ms RTT, 1 % random loss each way and a latency of
// 1.5 x RTT, so a frame whose packet loses its one retransmission is dropped (a few frames in a
// hundred). The feed is a clip with 8 channels of sound; the receiver records it and plays it to a
// clocked sink. Every dropped frame's sound must be silence of exactly its length, every
// delivered frame's sound the clip's samples at their place, and the counters must say so.
// Real hdstream processes in two linkemu sites; skipped without root or /dev/net/tun.
//   ctest --test-dir build -R AudioGapsWan
//
// Why frames drop here (the reasoning of srt_fec_test.cpp, measured there): a lost packet is
// NAKed when the next one arrives and its retransmission lands ~1 RTT later, inside 150 ms; if
// the NAK or the retransmission is lost too, the next report comes too late and the packet
// misses its play time: ~1.5-2.8 % of the losses. ~48,000 data packets (134 a frame), ~480 lost,
// ~10 frames dropped of 360, so a run without one (P ~ e^-10) does not happen. At 2 % loss and
// 1.2 x RTT, 339 of 360 frames dropped: the gaps then outlast the sink's one-second queue.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "protocol/audio_block.hpp"
#include "tests/media/sound_fixture.hpp"
#include "tests/support/namespaces.hpp"
#include "tests/support/stats_lines.hpp"
#include "tests/wan/netns_process.hpp"
#include "tools/linkemu/emulator.hpp"
#include "tools/linkemu/topology.hpp"

namespace hdstream::wan {
namespace {

using namespace std::chrono_literals;

constexpr int kFrames = 360;                    // round(12 s x 29.97 fps)
constexpr std::uint64_t kClipSamples = 48'048;  // the clip's sound: 30 frames, whole cadences
constexpr std::size_t kSampleBytes = 8 * 3;

// The frame numbers of a recording's pictures (from their timestamps, by ffprobe).
std::set<std::uint64_t> recorded_frames(const std::filesystem::path& file,
                                        const std::filesystem::path& dir) {
  const auto out = dir / "pts.txt";
  const std::string command =
      "ffprobe -v error -select_streams v:0 -show_entries packet=pts_time "
      "-of csv=p=0 '" +
      file.string() + "' > '" + out.string() + "'";
  std::set<std::uint64_t> frames;
  if (std::system(command.c_str()) != 0) return frames;
  std::istringstream in(test::read_file(out));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) frames.insert(std::llround(std::stod(line) * 30000.0 / 1001.0));
  }
  return frames;
}

TEST(AudioGapsWan, DroppedFramesAreSilenceOfExactlyTheirLengthAndTheRestIsTheClip) {
  if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
  const auto dir = std::filesystem::path(WAN_WORK_DIR) / "audio-gaps";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto clip = test::clip_with_sound(HDSTREAM_MEDIA_CACHE, 8);
  ASSERT_FALSE(clip.empty());
  const std::string source = test::pcm_of(clip, dir);
  ASSERT_EQ(source.size(), kClipSamples * kSampleBytes);

  linkemu::Emulator wan(
      linkemu::parse_topology_text("[link]\nrtt = \"100ms\"\nrate = \"1G\"\nloss = 0.01\n"
                                   "[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n",
                                   "audio_gaps"));
  wan.up();
  const auto file = [&](const std::string& name) { return (dir / name).string(); };
  const std::string address = "198.18.1.1:9200";
  NetnsProcess receiver(
      wan.netns("b"),
      {HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt", "--latency", "150ms",
       "--output", "file:" + file("feed{stream}.mov"), "--audio-output", "null", "--duration",
       "60s", "--stats", "json", "--stats-file", file("recv.jsonl")},
      file("recv.out"), file("recv.err"));
  NetnsProcess sender(
      wan.netns("a"),
      {HDSTREAM_BINARY, "send",     "--dest",    address,        "--transport",
       "srt",           "--format", "dnxhd220",  "--source",     "file:" + clip.string(),
       "--rtt",         "100ms",    "--latency", "150ms",        "--duration",
       "12s",           "--stats",  "json",      "--stats-file", file("send.jsonl")},
      file("send.out"), file("send.err"));
  ASSERT_TRUE(sender.wait_for(60s)) << "sender did not finish";
  ASSERT_TRUE(receiver.wait_for(30s)) << "receiver did not finish";
  ASSERT_FALSE(wan.stats().overloaded()) << wan.stats_json().dump();

  const auto sent = test::last_line(test::read_stats_file(file("send.jsonl")), "summary");
  const auto lines = test::read_stats_file(file("recv.jsonl"));
  const auto summary = test::last_line(lines, "summary");
  const auto media = test::last_line(lines, "media");
  ASSERT_TRUE(sent && summary && media) << "see " << dir;
  EXPECT_EQ((*sent)["frames"], kFrames);
  ASSERT_GT((*summary)["drops"].get<int>(), 0) << "the path dropped no frame: nothing was tested";

  // The recording's pictures say which frames came; its sound must follow them exactly.
  const std::set<std::uint64_t> came = recorded_frames(dir / "feed0.mov", dir);
  ASSERT_FALSE(came.empty());
  EXPECT_EQ(static_cast<long>(came.size()), (*summary)["frames"].get<long>());
  EXPECT_EQ(static_cast<long>(came.size()), (*media)["frames_recorded"].get<long>());
  const std::uint64_t last = *came.rbegin();
  FeedDescriptor feed{Codec::dnxhd, 1920, 1080, 30000, 1001};
  feed.audio = AudioFormat{8, 24, kAudioSampleRate};
  const std::string pcm = test::pcm_of(dir / "feed0.mov", dir);
  ASSERT_EQ(pcm.size(), audio_sample_at(feed, last + 1) * kSampleBytes);
  std::uint64_t silence = 0, gaps = 0, wrong = 0;
  for (std::uint64_t n = 0; n <= last; ++n) {
    const std::uint64_t at = audio_sample_at(feed, n), samples = audio_samples_in_frame(feed, n);
    const std::string got = pcm.substr(at * kSampleBytes, samples * kSampleBytes);
    if (came.contains(n)) {
      wrong += got != source.substr(at % kClipSamples * kSampleBytes, samples * kSampleBytes);
    } else {
      wrong += got != std::string(got.size(), '\0');
      silence += samples;
      gaps += n == 0 || came.contains(n - 1);
    }
  }
  EXPECT_EQ(wrong, 0u) << "frames whose sound is not what it must be";
  EXPECT_GT(gaps, 0u);
  EXPECT_EQ((*media)["audio_gaps"], gaps);
  EXPECT_EQ((*media)["audio_silence_samples"], silence);
  // The clocked sink played the sound and the silence, to the last delivered frame's end.
  EXPECT_EQ((*media)["audio_samples_played"], audio_sample_at(feed, last + 1));
  std::printf("[ audio ] %zu of %d frames came; %llu gaps, %llu samples of silence\n", came.size(),
              kFrames, static_cast<unsigned long long>(gaps),
              static_cast<unsigned long long>(silence));
}

}  // namespace
}  // namespace hdstream::wan
