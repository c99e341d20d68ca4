// Which file a recording takes (pipeline/recording_names.hpp): never one that exists, unless
// asked; never one this run already wrote; numbered beside the pattern's name.
#include "pipeline/recording_names.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "tests/support/process.hpp"

namespace hdstream {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  return test::scratch_dir("names-" + name);
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(RecordingNames, NumberedNamesSitBesideTheFirst) {
  EXPECT_EQ(numbered_recording_path("rec/feed0.mov", 1), "rec/feed0.mov");
  EXPECT_EQ(numbered_recording_path("rec/feed0.mov", 2), "rec/feed0-2.mov");
  EXPECT_EQ(numbered_recording_path("rec/feed0.mov", 17), "rec/feed0-17.mov");
  EXPECT_EQ(numbered_recording_path("feed.mkv", 3), "feed-3.mkv");
  EXPECT_EQ(numbered_recording_path("/a.b/cam-1.mxf", 2), "/a.b/cam-1-2.mxf");
}

TEST(RecordingNames, AFreeNameIsTakenAsItIsAndReservedEmpty) {
  const auto dir = fresh_dir("free");
  RecordingNames names;
  const auto base = (dir / "feed0.mov").string();
  EXPECT_EQ(names.claim(base), base);
  EXPECT_TRUE(fs::exists(base));  // reserved: nobody else takes it before the writer opens it
  EXPECT_EQ(fs::file_size(base), 0u);
}

TEST(RecordingNames, AnExistingFileIsKeptAndTheNextFreeNumberTaken) {
  const auto dir = fresh_dir("existing");
  write(dir / "feed0.mov", "yesterday's show");
  write(dir / "feed0-2.mov", "the day before");
  RecordingNames names;
  EXPECT_EQ(names.claim((dir / "feed0.mov").string()), (dir / "feed0-3.mov").string());
  EXPECT_EQ(read(dir / "feed0.mov"), "yesterday's show");
  EXPECT_EQ(read(dir / "feed0-2.mov"), "the day before");
}

TEST(RecordingNames, AFeedsNextRecordingNeverReusesThisRunsNames) {
  const auto dir = fresh_dir("next");
  RecordingNames names;
  const auto base = (dir / "feed0.mov").string();
  EXPECT_EQ(names.claim(base), base);
  EXPECT_EQ(names.claim(base), (dir / "feed0-2.mov").string());
  write(dir / "feed0-3.mov", "someone else's");
  EXPECT_EQ(names.claim(base), (dir / "feed0-4.mov").string());
  // Another feed's base is numbered on its own.
  EXPECT_EQ(names.claim((dir / "feed1.mov").string()), (dir / "feed1.mov").string());
}

TEST(RecordingNames, OverwriteReplacesOldFilesButNeverThisRunsOwn) {
  const auto dir = fresh_dir("overwrite");
  write(dir / "feed0.mov", "old");
  write(dir / "feed0-2.mov", "old too");
  RecordingNames names(/*overwrite=*/true);
  const auto base = (dir / "feed0.mov").string();
  EXPECT_EQ(names.claim(base), base);
  EXPECT_EQ(names.claim(base), (dir / "feed0-2.mov").string());
  EXPECT_EQ(names.claim(base), (dir / "feed0-3.mov").string());
}

TEST(RecordingNames, ConcurrentClaimsGetDistinctNames) {
  const auto dir = fresh_dir("concurrent");
  RecordingNames names;
  RecordingNames other_receiver;  // another process recording into the same directory
  const auto base = (dir / "feed0.mov").string();
  std::vector<std::string> got(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] { got[i] = (i % 2 ? names : other_receiver).claim(base); });
  }
  for (auto& thread : threads) thread.join();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(std::unique(got.begin(), got.end()), got.end());
  for (const auto& path : got) EXPECT_TRUE(fs::exists(path)) << path;
}

TEST(RecordingNames, AGivenBackNameLeavesNoEmptyFile) {
  const auto dir = fresh_dir("give-back");
  RecordingNames names;
  const auto path = names.claim((dir / "feed0.mov").string());
  RecordingNames::give_back(path);
  EXPECT_FALSE(fs::exists(path));
  write(dir / "kept.mov", "data");
  RecordingNames::give_back((dir / "kept.mov").string());  // not empty: never removed
  EXPECT_TRUE(fs::exists(dir / "kept.mov"));
}

TEST(RecordingNames, AFifoOrADeviceAtTheNameIsWhereTheRecordingGoes) {
  const auto dir = fresh_dir("fifo");
  const auto fifo = dir / "feed0.mkv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  RecordingNames names;
  EXPECT_EQ(names.claim(fifo.string()), fifo.string());  // another program reads it
  EXPECT_EQ(names.claim("/dev/null"), "/dev/null");
}

TEST(RecordingNames, AMissingDirectoryIsLeftToTheWriterToReport) {
  const auto dir = fresh_dir("missing");
  RecordingNames names;
  const auto base = (dir / "no-such-dir" / "feed0.mov").string();
  EXPECT_EQ(names.claim(base), base);
}

}  // namespace
}  // namespace hdstream
