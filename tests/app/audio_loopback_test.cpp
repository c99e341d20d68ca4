// Sound with the picture between two hdstream processes: a clip's PCM track travels inside its
// frames on every transport and is recorded beside the picture, sample for sample.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// A 30-frame 1080p29.97 DNxHD 36 clip with 1.001 s (48,048 samples, whole cadences) of
// `channels` channels of 24-bit noise, each channel its own: made once with ffmpeg.
std::filesystem::path clip_with_sound(int channels) {
  const auto path = std::filesystem::path(HDSTREAM_MEDIA_CACHE) /
                    ("dnxhd36-sound" + std::to_string(channels) + "ch.mov");
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(path.parent_path());
  std::string exprs;
  for (int c = 0; c < channels; ++c)
    exprs += (c ? "|" : "") + ("random(" + std::to_string(c) + ")-0.5");
  const auto partial = path.string() + "." + std::to_string(::getpid()) + ".partial.mov";
  const std::string command =
      "ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30000/1001 -f lavfi -i "
      "\"aevalsrc=exprs='" +
      exprs +
      "':s=48000\" -t 1.001 -c:v dnxhd -b:v 36M -pix_fmt yuv422p "
      "-c:a pcm_s24le '" +
      partial + "'";
  if (std::system(command.c_str()) != 0) return {};
  std::filesystem::rename(partial, path);
  return path;
}

// A file's first audio stream as stored (s24le), or empty.
std::string pcm_of(const std::filesystem::path& file, const std::filesystem::path& dir) {
  const auto out = dir / (file.filename().string() + ".pcm");
  const std::string command = "ffmpeg -v error -y -i '" + file.string() +
                              "' -map 0:a:0 -c:a copy -f s24le '" + out.string() + "'";
  if (std::system(command.c_str()) != 0) return {};
  return test::read_file(out);
}

class AudioLoopback : public ::testing::TestWithParam<std::vector<std::string>> {};

// Five feeds of eight channels each: every feed's recording holds the clip's sound twice over
// (60 frames of a 30-frame clip), bit for bit, beside its 60 pictures, with no gap.
TEST_P(AudioLoopback, FiveFeedsOfEightChannelsAreRecordedBitExactWithoutAGap) {
  const auto& transport = GetParam();
  auto dir = test::scratch_dir("audio-" + transport[1]);
  const auto clip = clip_with_sound(8);
  ASSERT_FALSE(clip.empty());
  const std::string source = pcm_of(clip, dir);
  ASSERT_EQ(source.size(), 48'048u * 8 * 3);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  std::vector<std::string> recv_args{HDSTREAM_BINARY, "recv",
                                     "--listen",      address,
                                     "--streams",     "5",
                                     "--output",      "file:" + (dir / "feed{stream}.mov").string(),
                                     "--duration",    "60s",
                                     "--stats",       "json",
                                     "--stats-file",  (dir / "r.jsonl").string(),
                                     transport[0],    transport[1]};
  std::vector<std::string> send_args{HDSTREAM_BINARY, "send",
                                     "--dest",        address,
                                     "--streams",     "5",
                                     "--format",      "dnxhd220",
                                     "--source",      "file:" + clip.string(),
                                     "--duration",    "2s",
                                     "--stats",       "json",
                                     "--stats-file",  (dir / "s.jsonl").string()};
  send_args.insert(send_args.end(), transport.begin(), transport.end());
  test::Process recv(recv_args, dir, "recv");
  test::Process send(send_args, dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();

  const std::string received = test::read_file(dir / "r.jsonl");
  const auto summary = test::find_line(received, "summary");
  ASSERT_TRUE(summary) << received;
  EXPECT_EQ((*summary)["frames"], 5 * 60);
  EXPECT_EQ((*summary)["drops"], 0);
  for (int stream = 0; stream < 5; ++stream) {
    nlohmann::json media;
    for (auto& line : test::json_lines(received)) {
      if (line["type"] == "media" && line["stream"] == stream) media = line;
    }
    ASSERT_FALSE(media.is_null()) << stream;
    EXPECT_EQ(media["audio_channels"], 8);
    EXPECT_EQ(media["audio_gaps"], 0);
    EXPECT_EQ(media["audio_silence_samples"], 0);
    EXPECT_EQ(media["frames_decoded"], 60);
    EXPECT_EQ(media["decode_errors"], 0);
    const std::string recorded = pcm_of(dir / ("feed" + std::to_string(stream) + ".mov"), dir);
    ASSERT_EQ(recorded.size(), 2 * source.size()) << "stream " << stream;
    EXPECT_TRUE(recorded == source + source) << "stream " << stream;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, AudioLoopback,
                         ::testing::Values(std::vector<std::string>{"--transport", "tcp"},
                                           std::vector<std::string>{"--transport", "mtcp",
                                                                    "--conns", "4"},
                                           std::vector<std::string>{"--transport", "srt"}),
                         [](const auto& param_info) { return param_info.param[1]; });

}  // namespace
}  // namespace hdstream
