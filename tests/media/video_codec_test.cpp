// DNxHD encode/decode through libavcodec, and the decoder's behaviour on hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "media/file_reader.hpp"
#include "media/media_error.hpp"
#include "media/plane_hash.hpp"
#include "media/video_decoder.hpp"
#include "media/video_encoder.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

std::vector<FrameBytes> read_frames(const std::filesystem::path& path, int count) {
  FileReader reader(path.string(), test::dnxhd220_feed());
  std::vector<FrameBytes> frames(static_cast<std::size_t>(count));
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

// ffmpeg's decode of the clip's first `frames` frames with libavcodec's default IDCT, as raw
// planes one after another.
std::string reference_planes(const std::filesystem::path& clip, const std::filesystem::path& dir,
                             const std::string& pix_fmt, int frames) {
  const auto out = dir / ("reference-" + pix_fmt + ".raw");
  test::Process ffmpeg(
      {"/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", clip.string(), "-frames:v",
       std::to_string(frames), "-f", "rawvideo", "-pix_fmt", pix_fmt, out.string()},
      dir, "ffmpeg-" + pix_fmt);
  EXPECT_EQ(ffmpeg.wait(std::chrono::seconds(60)), 0) << ffmpeg.err();
  return test::read_file(out);
}

// A decoded picture's planes, rows packed without stride padding.
std::string packed_planes(const Picture& picture) {
  std::string out;
  for (int p = 0; p < picture.plane_count; ++p) {
    for (int row = 0; row < picture.rows[p]; ++row) {
      const auto* start = reinterpret_cast<const char*>(picture.data[p]) +
                          static_cast<std::ptrdiff_t>(row) * picture.stride_bytes[p];
      out.append(start, static_cast<std::size_t>(picture.row_bytes[p]));
    }
  }
  return out;
}

TEST(VideoCodec, EightBitDnxhdDecodesWithinOneLsbOfTheDefaultIdct) {
  auto dir = test::scratch_dir("idct8");
  const auto clip = test::dnxhd_clip(dir, 2);
  const std::string reference = reference_planes(clip, dir, "yuv422p", 2);
  auto frames = read_frames(clip, 2);
  VideoDecoder decoder(test::dnxhd220_feed());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const std::string ours = packed_planes(decoder.decode(frames[f]));
    ASSERT_EQ(reference.size(), 2 * ours.size());
    std::size_t differing = 0;
    int worst = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) {
      const int delta = std::abs(static_cast<unsigned char>(ours[i]) -
                                 static_cast<unsigned char>(reference[f * ours.size() + i]));
      differing += delta != 0;
      worst = std::max(worst, delta);
    }
    EXPECT_LE(worst, 1) << "frame " << f;
    EXPECT_LT(differing, ours.size() / 100) << "frame " << f;
  }
}

TEST(VideoCodec, TenBitDnxhdDecodesExactlyLikeTheDefaultIdct) {
  auto dir = test::scratch_dir("idct10");
  const auto clip = dir / "dnxhd-10bit.mov";
  test::Process encode({"/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                        "testsrc2=size=1920x1080:rate=30000/1001", "-frames:v", "3", "-c:v",
                        "dnxhd", "-b:v", "185M", "-pix_fmt", "yuv422p10", clip.string()},
                       dir, "encode");
  ASSERT_EQ(encode.wait(std::chrono::seconds(60)), 0) << encode.err();
  const std::string reference = reference_planes(clip, dir, "yuv422p10le", 3);
  const FeedDescriptor feed{Codec::dnxhd, 1920, 1080, 30000, 1001, 185'000'000};
  FileReader reader(clip.string(), feed);
  VideoDecoder decoder(feed);
  // The first picture shows 10 bits and the decoder reopens with the SIMD simple IDCT: pictures
  // before and after are the same bits as ffmpeg's.
  FrameBytes frame;
  for (std::size_t f = 0; f < 3; ++f) {
    reader.read(frame);
    const Picture& picture = decoder.decode(frame);
    ASSERT_EQ(picture.layout, PixelLayout::yuv422p10);
    const std::string ours = packed_planes(picture);
    ASSERT_EQ(reference.size(), 3 * ours.size());
    EXPECT_TRUE(ours == reference.substr(f * ours.size(), ours.size())) << "frame " << f;
  }
}

TEST(VideoCodec, ReencodingADecodedPictureGivesAValidFrameOfTheSameProfile) {
  auto dir = test::scratch_dir("reencode");
  auto frames = read_frames(test::dnxhd_clip(dir, 1), 1);
  VideoDecoder decoder(test::dnxhd220_feed());
  VideoEncoder encoder(test::dnxhd220_feed());
  const auto encoded = encoder.encode(decoder.decode(frames[0]));
  EXPECT_EQ(encoded.size(), frames[0].size());
  FrameBytes copy(encoded.begin(), encoded.end());
  EXPECT_EQ(decoder.decode(copy).width, 1920);
}

TEST(VideoCodec, TruncatedAndGarbageFramesThrowAndTheDecoderCarriesOn) {
  auto dir = test::scratch_dir("hostile");
  auto frames = read_frames(test::dnxhd_clip(dir, 2), 2);
  VideoDecoder decoder(test::dnxhd220_feed());
  const std::uint64_t good = picture_hash(decoder.decode(frames[0]));

  FrameBytes truncated(frames[0].begin(), frames[0].begin() + 1000);
  EXPECT_THROW(decoder.decode(truncated), MediaError);
  FrameBytes garbage(frames[0].size());
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = std::byte(i * 131 % 251);
  EXPECT_THROW(decoder.decode(garbage), MediaError);
  EXPECT_THROW(decoder.decode({}), MediaError);
  // A valid header over a corrupted body decodes to some picture or throws, never crashes.
  FrameBytes corrupted = frames[0];
  for (std::size_t i = 640; i < corrupted.size(); i += 97) corrupted[i] ^= std::byte{0x5a};
  try {
    decoder.decode(corrupted);
  } catch (const MediaError&) {
  }
  EXPECT_EQ(picture_hash(decoder.decode(frames[0])), good);
}

// `bytes` copied to the end of an anonymous mapping whose next page is inaccessible: a read one
// byte past them faults. The shared_ptr unmaps it when its last holder lets go.
std::shared_ptr<std::span<const std::byte>> before_a_guard_page(std::span<const std::byte> bytes) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t length = (bytes.size() + page - 1) / page * page + page;
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::runtime_error("mmap failed");
  auto* guard = static_cast<std::byte*>(base) + length - page;
  if (::mprotect(guard, page, PROT_NONE) != 0) {
    ::munmap(base, length);
    throw std::runtime_error("mprotect failed");
  }
  std::byte* start = guard - bytes.size();
  std::memcpy(start, bytes.data(), bytes.size());
  return std::shared_ptr<std::span<const std::byte>>(
      new std::span<const std::byte>(start, bytes.size()), [base, length](auto* span) {
        ::munmap(base, length);
        delete span;
      });
}

// Uncompressed frames lent to the decoder are decoded where they lie, to the same picture as a
// padded copy, reading nothing past their last byte; the decoder holds them until its next frame.
TEST(VideoCodec, UncompressedFramesAreDecodedInPlaceAndHeldUntilTheNext) {
  auto dir = test::scratch_dir("in-place");
  for (const FeedDescriptor& feed : {test::uyvy1080_feed(), test::v210_1080p60_feed()}) {
    SCOPED_TRACE(to_string(feed.codec));
    FileReader reader(test::clip(dir, feed, 2).string(), feed);
    FrameBytes first, second;
    reader.read(first);
    reader.read(second);
    VideoDecoder copying(feed), lending(feed);
    const std::uint64_t expected = picture_hash(copying.decode(first));

    std::weak_ptr<const void> watch;
    {
      auto lent = before_a_guard_page(first);
      watch = lent;
      const Picture& picture = lending.decode(*lent, lent);
      EXPECT_EQ(picture_hash(picture), expected);
      if (feed.codec == Codec::uyvy) {  // the raw picture is the frame's own bytes
        EXPECT_EQ(static_cast<const void*>(picture.data[0]), lent->data());
      }
    }
    EXPECT_FALSE(watch.expired()) << "let go while its picture is still valid";
    EXPECT_EQ(picture_hash(lending.decode(second)), picture_hash(copying.decode(second)));
    EXPECT_TRUE(watch.expired()) << "held after the next frame";

    // A lent frame a byte short is refused, and the decoder carries on.
    auto short_one = before_a_guard_page(std::span<const std::byte>(first).first(first.size() - 1));
    EXPECT_THROW(lending.decode(*short_one, short_one), MediaError);
    EXPECT_EQ(picture_hash(lending.decode(first)), expected);
  }
}

// A DNxHD decoder may read past a frame's end: it is always given a padded copy, never the
// caller's bytes.
TEST(VideoCodec, CompressedFramesAreCopiedNotLent) {
  auto dir = test::scratch_dir("lent-dnxhd");
  auto frames = read_frames(test::dnxhd_clip(dir, 1), 1);
  VideoDecoder decoder(test::dnxhd220_feed());
  auto owner = std::make_shared<FrameBytes>(frames[0]);
  std::weak_ptr<const void> watch = owner;
  const std::span<const std::byte> bytes(*owner);
  EXPECT_EQ(decoder.decode(bytes, std::move(owner)).width, 1920);
  EXPECT_TRUE(watch.expired());
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
