// Clips read with libavformat and written back without re-encoding stay byte-identical.
#include <gtest/gtest.h>

#include <fstream>

#include "media/file_reader.hpp"
#include "media/file_writer.hpp"
#include "media/media_error.hpp"
#include "protocol/checksum.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

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
  std::vector<std::byte> frame;
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
      std::vector<std::byte> frame;
      for (int i = 0; i < 3; ++i) {
        source.read(frame);
        written.push_back(payload_checksum(frame));
        writer.write(frame, i);
      }
    }
    FileReader copy(path, test::dnxhd220_feed());
    EXPECT_EQ(copy.feed().codec, Codec::dnxhd) << name;
    std::vector<std::byte> frame;
    for (int i = 0; i < 3; ++i) {
      copy.read(frame);
      EXPECT_EQ(payload_checksum(frame), written[static_cast<std::size_t>(i)])
          << name << " frame " << i;
    }
  }
}

// Frames read in place from a MOV are the packets libavformat gives for them, through a loop.
TEST(FileIo, InPlaceReadsAreLibavformatsPackets) {
  auto dir = test::scratch_dir("in-place-reads");
  const auto mov = test::clip(dir, test::uyvy1080_feed(), 3);
  const auto mkv = dir / "copy.mkv";  // Matroska: read through libavformat's packets
  FileReader source(mov.string(), test::uyvy1080_feed());
  ASSERT_TRUE(source.reads_in_place());
  std::vector<std::uint64_t> in_place;
  {
    FileWriter writer(mkv.string(), source.feed());
    std::vector<std::byte> frame;
    for (int i = 0; i < 3; ++i) {
      source.read(frame);
      EXPECT_EQ(frame.size(), 4'147'200u);
      in_place.push_back(payload_checksum(frame));
      writer.write(frame, i);
    }
  }
  FileReader packets(mkv.string(), test::uyvy1080_feed());
  ASSERT_FALSE(packets.reads_in_place());
  std::vector<std::byte> packet, again;
  for (std::size_t i = 0; i < 7; ++i) {
    packets.read(packet);
    source.read(again);  // frames 3 to 9 of the looping clip
    EXPECT_EQ(payload_checksum(packet), in_place[i % 3]) << i;
    EXPECT_EQ(payload_checksum(again), in_place[i % 3]) << i;
  }
  EXPECT_NE(in_place[0], in_place[1]);
  EXPECT_EQ(source.loops(), 3u);
  EXPECT_EQ(packets.loops(), 2u);
}

// A clip cut short under a running reader is a one-line error naming it, not a crash.
TEST(FileIo, AClipCutShortWhileReadIsAnError) {
  auto dir = test::scratch_dir("cut-short");
  const auto mov = dir / "cut.mov";
  std::filesystem::copy_file(test::clip(dir, test::uyvy1080_feed(), 3), mov,
                             std::filesystem::copy_options::overwrite_existing);
  FileReader reader(mov.string(), test::uyvy1080_feed());
  std::filesystem::resize_file(mov, 4'147'200);
  std::vector<std::byte> frame;
  try {
    for (int i = 0; i < 3; ++i) reader.read(frame);
    FAIL() << "read past the end of the file";
  } catch (const MediaError& error) {
    EXPECT_NE(std::string(error.what()).find("cut.mov"), std::string::npos) << error.what();
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
