// A clip's sound read as stored and recorded beside the picture, with real libavformat: PCM
// round-trips bit for bit in every container, big-endian PCM comes out in wire order, and sound
// hdstream cannot carry as stored is a one-line error.
#include <gtest/gtest.h>

#include <cstdlib>

#include "media/file_audio_reader.hpp"
#include "media/file_reader.hpp"
#include "media/file_writer.hpp"
#include "media/media_error.hpp"
#include "protocol/audio_block.hpp"
#include "protocol/checksum.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

// One second of a test tone in `codec` at `rate`, `channels` channels, made by ffmpeg.
std::filesystem::path sound_file(const std::filesystem::path& dir, const std::string& name,
                                 const std::string& codec, int rate = 48000, int channels = 2) {
  const auto path = dir / name;
  const std::string command =
      "ffmpeg -v error -y -f lavfi -i \"aevalsrc=exprs='random(0)-0.5|random(1)-0.5':s=" +
      std::to_string(rate) + ":d=1\" -ac " + std::to_string(channels) + " -c:a " + codec + " '" +
      path.string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return path;
}

std::string what_of(const std::filesystem::path& path) {
  try {
    FileAudioReader::open_if_any(path.string());
  } catch (const MediaError& error) {
    return error.what();
  }
  return "";
}

TEST(FileAudio, SoundIsRecordedBesideThePictureAndReadBackBitExact) {
  auto dir = test::scratch_dir("file-audio-writer");
  FileReader source(test::dnxhd_clip(dir, 3).string(), test::dnxhd220_feed());
  FeedDescriptor feed = source.feed();
  for (const AudioFormat audio :
       {AudioFormat{8, 24, kAudioSampleRate}, AudioFormat{2, 16, kAudioSampleRate}}) {
    feed.audio = audio;
    for (const char* name : {"sound.mov", "sound.mkv", "sound.mxf"}) {
      const auto path = (dir / name).string();
      std::vector<std::byte> sound;
      std::vector<std::uint64_t> pictures;
      {
        FileWriter writer(path, feed);
        FrameBytes frame;
        for (std::uint64_t i = 0; i < 5; ++i) {
          source.read(frame);
          pictures.push_back(payload_checksum(frame));
          writer.write(frame, static_cast<std::int64_t>(i));
          std::vector<std::byte> pcm(std::size_t{audio_samples_in_frame(feed, i)} *
                                     audio.bytes_per_sample());
          for (std::size_t b = 0; b < pcm.size(); ++b) pcm[b] = std::byte((i * 977 + b * 13) % 253);
          writer.write_audio(pcm, static_cast<std::int64_t>(audio_sample_at(feed, i)));
          sound.insert(sound.end(), pcm.begin(), pcm.end());
        }
      }
      auto reader = FileAudioReader::open_if_any(path);
      ASSERT_TRUE(reader) << name;
      EXPECT_EQ(reader->format(), audio) << name;
      std::vector<std::byte> read;
      reader->read(static_cast<std::uint32_t>(audio_sample_at(feed, 5)), read);
      EXPECT_TRUE(read == sound) << name << " " << int(audio.channels) << " channels";
      FileReader pictures_back(path, test::dnxhd220_feed());
      FrameBytes frame;
      for (std::uint64_t i = 0; i < 5; ++i) {
        pictures_back.read(frame);
        EXPECT_EQ(payload_checksum(frame), pictures[i]) << name << " frame " << i;
      }
    }
  }
}

TEST(FileAudio, BigEndianPcmIsReadInWireOrderAndRewinds) {
  auto dir = test::scratch_dir("file-audio-endian");
  const auto little = sound_file(dir, "le.mov", "pcm_s24le");
  // The same samples stored big-endian ('in24'), as QuickTime files often hold them.
  const auto big = dir / "be.mov";
  const std::string command =
      "ffmpeg -v error -y -i '" + little.string() + "' -c:a pcm_s24be '" + big.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  auto le = FileAudioReader::open_if_any(little.string());
  auto be = FileAudioReader::open_if_any(big.string());
  ASSERT_TRUE(le && be);
  EXPECT_EQ(be->format(), (AudioFormat{2, 24, kAudioSampleRate}));
  std::vector<std::byte> from_le, from_be;
  le->read(48000, from_le);
  be->read(48000, from_be);
  EXPECT_TRUE(from_le == from_be);
  EXPECT_NE(from_le, std::vector<std::byte>(from_le.size()));  // not silence
  // Past the end, silence; after a rewind, the same samples again.
  std::vector<std::byte> after;
  be->read(100, after);
  EXPECT_EQ(after, std::vector<std::byte>(600));
  be->rewind();
  std::vector<std::byte> again;
  be->read(48000, again);
  EXPECT_TRUE(again == from_le);
}

TEST(FileAudio, SoundThatCannotTravelAsStoredIsAOneLineErrorAndSilenceIsNoSound) {
  auto dir = test::scratch_dir("file-audio-errors");
  const std::string aac = what_of(sound_file(dir, "aac.mov", "aac"));
  EXPECT_NE(aac.find("has aac audio, 2 channels at 48000 Hz"), std::string::npos) << aac;
  EXPECT_NE(aac.find("convert with ffmpeg -c:a pcm_s24le -ar 48000"), std::string::npos) << aac;
  EXPECT_EQ(aac.find('\n'), std::string::npos);
  const std::string cd = what_of(sound_file(dir, "cd.mov", "pcm_s16le", 44100));
  EXPECT_NE(cd.find("2 channels at 44100 Hz"), std::string::npos) << cd;
  EXPECT_EQ(FileAudioReader::open_if_any(test::dnxhd_clip(dir, 2).string()), nullptr);
  EXPECT_NE(what_of(dir / "missing.mov").find("cannot read"), std::string::npos);
}

}  // namespace
}  // namespace hdstream
