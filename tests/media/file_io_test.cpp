// Clips read with libavformat and written back without re-encoding stay byte-identical.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "media/file_reader.hpp"
#include "media/file_writer.hpp"
#include "media/media_error.hpp"
#include "protocol/checksum.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"
#include "tests/support/recorded_file.hpp"

namespace hdstream {
namespace {

TEST(FileIo, ReaderProbesTheClipAndLoops) {
  auto dir = test::scratch_dir("reader");
  FileReader reader(test::dnxhd_clip(dir, 4).string(), test::dnxhd220_feed());
  EXPECT_EQ(reader.feed().codec, Codec::dnxhd);
  EXPECT_EQ(reader.feed().width, 1920);
  EXPECT_EQ(reader.feed().frame_rate_num, 30000u);
  EXPECT_EQ(reader.feed().frame_rate_den, 1001u);
  EXPECT_NEAR(static_cast<double>(reader.feed().bit_rate_bps), 219.98e6, 0.1e6);
  EXPECT_TRUE(reader.reads_in_place());  // a MOV's sample table places every frame
  FrameBytes frame;
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < 9; ++i) {
    reader.read(frame);
    hashes.push_back(payload_checksum(frame));
  }
  EXPECT_EQ(reader.loops(), 2u);
  EXPECT_EQ(hashes[0], hashes[4]);
  EXPECT_EQ(hashes[3], hashes[7]);
  EXPECT_NE(hashes[0], hashes[1]);  // the bars scroll: every frame differs
}

TEST(FileIo, WriterRecordsFramesByteForByteInMovMkvAndMxf) {
  auto dir = test::scratch_dir("writer");
  FileReader source(test::dnxhd_clip(dir, 3).string(), test::dnxhd220_feed());
  for (const char* name : {"copy.mov", "copy.mkv", "copy.mxf"}) {
    const auto path = (dir / name).string();
    std::vector<std::uint64_t> written;
    {
      FileWriter writer(path, source.feed());
      FrameBytes frame;
      for (int i = 0; i < 3; ++i) {
        source.read(frame);
        written.push_back(payload_checksum(frame));
        writer.write(frame, i);
      }
    }
    FileReader copy(path, test::dnxhd220_feed());
    EXPECT_EQ(copy.feed().codec, Codec::dnxhd) << name;
    FrameBytes frame;
    for (int i = 0; i < 3; ++i) {
      copy.read(frame);
      EXPECT_EQ(payload_checksum(frame), written[static_cast<std::size_t>(i)])
          << name << " frame " << i;
    }
  }
}

// A recording whose first frames never came (lost on the path) starts its pictures where they
// belong: ffmpeg reads each frame of a .mov or .mkv back at its own place on the timeline. (An
// MXF's timeline counts the pictures it holds: a gap there closes up.)
TEST(FileIo, ARecordingWhoseFirstFramesNeverCameKeepsEveryPictureInItsPlace) {
  auto dir = test::scratch_dir("late-start");
  FileReader source(test::dnxhd_clip(dir, 3).string(), test::dnxhd220_feed());
  const std::vector<std::int64_t> came = {1, 2, 4, 40};  // 0 and 3 lost; 40 past a fragment
  for (const char* name : {"late.mov", "late.mkv"}) {
    const auto path = dir / name;
    {
      FileWriter writer(path.string(), source.feed(), FileLayout::recording);
      FrameBytes frame;
      for (const std::int64_t index : came) {
        source.read(frame);
        writer.write(frame, index);
      }
    }
    const auto packets = test::recorded_packets(path, dir, 30000.0 / 1001);
    ASSERT_EQ(packets.size(), came.size()) << name;
    for (std::size_t i = 0; i < came.size(); ++i) {
      EXPECT_EQ(packets[i].frame_index, came[i]) << name << " packet " << i;
      // At its exact time in a .mov, not a movie-timescale tick away (0.37 ms at 1/1000 s);
      // Matroska counts in milliseconds.
      const double tolerance_s = std::string(name).ends_with(".mov") ? 1e-6 : 0.5e-3;
      EXPECT_NEAR(packets[i].pts_s, static_cast<double>(came[i]) * 1001 / 30000, tolerance_s)
          << name << " packet " << i;
    }
  }
}

// MXF's timeline counts pictures, so a gap cannot be left in it: the last picture that came
// fills the frames that did not, and every picture after the gap stays at its own time. (Before,
// the pictures after a gap came early by its length, while the sound kept its place.)
TEST(FileIo, AnMxfRecordingFillsAGapWithTheLastPictureAndKeepsTheRestInPlace) {
  auto dir = test::scratch_dir("mxf-gap");
  FileReader source(test::dnxhd_clip(dir, 4).string(), test::dnxhd220_feed());
  const std::vector<std::int64_t> came = {0, 1, 7, 8};  // 2..6 lost in an outage
  const auto path = dir / "gap.mxf";
  {
    FileWriter writer(path.string(), source.feed(), FileLayout::recording);
    FrameBytes frame;
    for (const std::int64_t index : came) {
      source.read(frame);
      writer.write(frame, index);
    }
    EXPECT_EQ(writer.frames_written(), came.size());
    EXPECT_EQ(writer.frames_repeated(), 5u);
  }
  // The copy of the clip's four pictures (scrolling bars: each one different), read back.
  const auto copy = dir / "copy.mxf";
  {
    FileReader again(test::dnxhd_clip(dir, 4).string(), test::dnxhd220_feed());
    FileWriter writer(copy.string(), again.feed(), FileLayout::recording);
    FrameBytes frame;
    for (std::int64_t index = 0; index < 4; ++index) {
      again.read(frame);
      writer.write(frame, index);
    }
  }
  const auto clip = test::recorded_packets(copy, dir, 30000.0 / 1001);
  ASSERT_EQ(clip.size(), 4u);
  const auto packets = test::recorded_packets(path, dir, 30000.0 / 1001);
  ASSERT_EQ(packets.size(), 9u);
  const std::vector<std::size_t> picture = {0, 1, 1, 1, 1, 1, 1, 2, 3};  // of the clip's
  for (std::size_t i = 0; i < packets.size(); ++i) {
    EXPECT_EQ(packets[i].frame_index, static_cast<std::int64_t>(i)) << "packet " << i;
    EXPECT_EQ(packets[i].md5, clip[picture[i]].md5) << "packet " << i;
  }
  EXPECT_NE(clip[1].md5, clip[2].md5);
}

// Frames read in place from a MOV are the packets ffmpeg's own demuxer gives for them (its
// `-c copy` of the clip, read back), in order and through loops; a Matroska copy goes through
// libavformat's packets and gives the same bytes.
TEST(FileIo, InPlaceReadsAreTheDemuxersPackets) {
  auto dir = test::scratch_dir("in-place-reads");
  const auto mov = test::clip(dir, test::uyvy1080_feed(), 3);
  const auto raw = dir / "packets.raw";
  test::Process ffmpeg({"/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i",
                        mov.string(), "-c", "copy", "-f", "rawvideo", raw.string()},
                       dir, "ffmpeg");
  ASSERT_EQ(ffmpeg.wait(std::chrono::seconds(60)), 0) << ffmpeg.err();
  const std::string packets = test::read_file(raw);
  constexpr std::size_t kFrame = 4'147'200;
  ASSERT_EQ(packets.size(), 3 * kFrame);

  FileReader in_place(mov.string(), test::uyvy1080_feed());
  ASSERT_TRUE(in_place.reads_in_place());
  const auto mkv = dir / "copy.mkv";
  FrameBytes frame;
  {
    FileWriter writer(mkv.string(), in_place.feed());
    for (std::size_t i = 0; i < 7; ++i) {  // frames 0, 1, 2, 0, 1, 2, 0
      in_place.read(frame);
      ASSERT_EQ(frame.size(), kFrame);
      EXPECT_EQ(std::memcmp(frame.data(), packets.data() + i % 3 * kFrame, kFrame), 0) << i;
      if (i < 3) writer.write(frame, static_cast<std::int64_t>(i));
    }
  }
  EXPECT_EQ(in_place.loops(), 2u);
  FileReader through_packets(mkv.string(), test::uyvy1080_feed());
  ASSERT_FALSE(through_packets.reads_in_place());
  for (std::size_t i = 0; i < 4; ++i) {
    through_packets.read(frame);
    ASSERT_EQ(frame.size(), kFrame);
    EXPECT_EQ(std::memcmp(frame.data(), packets.data() + i % 3 * kFrame, kFrame), 0) << i;
  }
  EXPECT_EQ(through_packets.loops(), 1u);
  EXPECT_NE(packets.substr(0, kFrame), packets.substr(kFrame, kFrame));  // the bars scroll

  // A fragmented MOV (a fragment a frame): whichever way it is read, its frames are these.
  const auto fragmented = dir / "fragmented.mov";
  test::Process remux(
      {"/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", mov.string(), "-c", "copy",
       "-movflags", "frag_keyframe", fragmented.string()},
      dir, "remux");
  ASSERT_EQ(remux.wait(std::chrono::seconds(60)), 0) << remux.err();
  FileReader fragments(fragmented.string(), test::uyvy1080_feed());
  for (std::size_t i = 0; i < 4; ++i) {
    fragments.read(frame);
    ASSERT_EQ(frame.size(), kFrame) << i;
    EXPECT_EQ(std::memcmp(frame.data(), packets.data() + i % 3 * kFrame, kFrame), 0) << i;
  }
  EXPECT_EQ(fragments.loops(), 1u);
}

// A clip cut short under a running reader is a one-line error naming it, not a crash.
TEST(FileIo, AClipCutShortWhileReadIsAnError) {
  auto dir = test::scratch_dir("cut-short");
  const auto mov = dir / "cut.mov";
  std::filesystem::copy_file(test::clip(dir, test::uyvy1080_feed(), 3), mov,
                             std::filesystem::copy_options::overwrite_existing);
  FileReader reader(mov.string(), test::uyvy1080_feed());
  ASSERT_TRUE(reader.reads_in_place());
  std::filesystem::resize_file(mov, 4'147'200 * 3 / 2);  // into the second frame
  FrameBytes frame;
  reader.read(frame);
  EXPECT_EQ(frame.size(), 4'147'200u);
  try {
    reader.read(frame);
    FAIL() << "read past the end of the file";
  } catch (const MediaError& error) {
    EXPECT_NE(std::string(error.what()).find("cut.mov"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("cut short"), std::string::npos) << error.what();
  }
}

TEST(FileIo, UnreadableOrNonVideoFilesAreOneLineErrors) {
  auto dir = test::scratch_dir("bad-files");
  try {
    FileReader reader((dir / "missing.mov").string(), test::dnxhd220_feed());
    FAIL();
  } catch (const MediaError& error) {
    EXPECT_NE(std::string(error.what()).find("missing.mov"), std::string::npos) << error.what();
  }
  std::ofstream(dir / "text.mov") << "not a movie";
  EXPECT_THROW(FileReader((dir / "text.mov").string(), test::dnxhd220_feed()), MediaError);
  EXPECT_FALSE(FileWriter::check((dir / "x.txt").string(), test::dnxhd220_feed()).empty());
  EXPECT_FALSE(
      FileWriter::check((dir / "no/such/dir/x.mov").string(), test::dnxhd220_feed()).empty());
  EXPECT_TRUE(FileWriter::check((dir / "x.mov").string(), test::dnxhd220_feed()).empty());
}

}  // namespace
}  // namespace hdstream
