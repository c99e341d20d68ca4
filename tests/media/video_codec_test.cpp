// DNxHD encode/decode through libavcodec, and the decoder's behaviour on hostile input.
#include <gtest/gtest.h>

#include <vector>

#include "media/file_reader.hpp"
#include "media/media_error.hpp"
#include "media/plane_hash.hpp"
#include "media/video_decoder.hpp"
#include "media/video_encoder.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

std::vector<std::vector<std::byte>> read_frames(const std::filesystem::path& path, int count) {
  FileReader reader(path.string(), test::dnxhd220_feed());
  std::vector<std::vector<std::byte>> frames(static_cast<std::size_t>(count));
  for (auto& frame : frames) reader.read(frame);
  return frames;
}

TEST(VideoCodec, DnxhdClipDecodesToFullSize422Pictures) {
  auto dir = test::scratch_dir("codec");
  auto frames = read_frames(test::dnxhd_clip(dir, 3), 3);
  VideoDecoder decoder(test::dnxhd220_feed());
  for (const auto& frame : frames) {
    EXPECT_EQ(frame.size(), 917'504u);  // CID 1238
    const Picture& picture = decoder.decode(frame);
    EXPECT_EQ(picture.width, 1920);
    EXPECT_EQ(picture.height, 1080);
    EXPECT_EQ(picture.layout, PixelLayout::yuv422p8);
    EXPECT_EQ(picture.plane_count, 3);
    EXPECT_EQ(picture.row_bytes[1], 960);
  }
}

TEST(VideoCodec, ReencodingADecodedPictureGivesAValidFrameOfTheSameProfile) {
  auto dir = test::scratch_dir("reencode");
  auto frames = read_frames(test::dnxhd_clip(dir, 1), 1);
  VideoDecoder decoder(test::dnxhd220_feed());
  VideoEncoder encoder(test::dnxhd220_feed());
  const auto encoded = encoder.encode(decoder.decode(frames[0]));
  EXPECT_EQ(encoded.size(), frames[0].size());
  std::vector<std::byte> copy(encoded.begin(), encoded.end());
  EXPECT_EQ(decoder.decode(copy).width, 1920);
}

TEST(VideoCodec, TruncatedAndGarbageFramesThrowAndTheDecoderCarriesOn) {
  auto dir = test::scratch_dir("hostile");
  auto frames = read_frames(test::dnxhd_clip(dir, 2), 2);
  VideoDecoder decoder(test::dnxhd220_feed());
  const std::uint64_t good = picture_hash(decoder.decode(frames[0]));

  std::vector<std::byte> truncated(frames[0].begin(), frames[0].begin() + 1000);
  EXPECT_THROW(decoder.decode(truncated), MediaError);
  std::vector<std::byte> garbage(frames[0].size());
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = std::byte(i * 131 % 251);
  EXPECT_THROW(decoder.decode(garbage), MediaError);
  EXPECT_THROW(decoder.decode({}), MediaError);
  // A valid header over a corrupted body decodes to some picture or throws, never crashes.
  std::vector<std::byte> corrupted = frames[0];
  for (std::size_t i = 640; i < corrupted.size(); i += 97) corrupted[i] ^= std::byte{0x5a};
  try {
    decoder.decode(corrupted);
  } catch (const MediaError&) {
  }
  EXPECT_EQ(picture_hash(decoder.decode(frames[0])), good);
}

TEST(VideoCodec, AFeedAnnouncingAnotherSizeIsADecodeError) {
  auto dir = test::scratch_dir("size");
  auto frames = read_frames(test::dnxhd_clip(dir, 1), 1);
  FeedDescriptor wrong = test::dnxhd220_feed();
  wrong.width = 1280;
  wrong.height = 720;
  VideoDecoder decoder(wrong);
  EXPECT_THROW(decoder.decode(frames[0]), MediaError);
}

TEST(VideoCodec, EncoderRefusesARateLibavcodecHasNoProfileFor) {
  FeedDescriptor odd = test::dnxhd220_feed();
  odd.bit_rate_bps = 123'000'000;
  EXPECT_THROW(VideoEncoder{odd}, MediaError);
}

}  // namespace
}  // namespace hdstream
