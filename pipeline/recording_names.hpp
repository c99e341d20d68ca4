// Which file a recording goes into (--output file:PATTERN): a recording never truncates a file
// that existed before it, nor one this run wrote. The first recording of a stream takes the
// pattern's name (rec/feed0.mov); when that exists, or when the feed's recording must go on in
// another file (its picture format changed, its sender started over), the next numbered name
// beside it: rec/feed0-2.mov, rec/feed0-3.mov, ... With --overwrite, files from before this run
// are replaced, in the same order; this run's own files still never are. A FIFO or a device at
// the name is no file to keep but where the recording is meant to go (another program reads it).
//   RecordingNames names(/*overwrite=*/false);          // one per receiver, shared by its feeds
//   std::string path = names.claim("rec/feed0.mov");    // "rec/feed0-2.mov" if feed0.mov exists
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace hdstream {

// `base` with part number `part`: part 1 is `base` itself, part n >= 2 "STEM-n.EXT" beside it.
std::string numbered_recording_path(const std::string& base, std::uint32_t part);

class RecordingNames {
 public:
  explicit RecordingNames(bool overwrite = false) : overwrite_(overwrite) {}
  RecordingNames(const RecordingNames&) = delete;
  RecordingNames& operator=(const RecordingNames&) = delete;

  bool overwrite() const { return overwrite_; }

  // The path a new recording for `base` (a file pattern with its stream substituted) is to be
  // written to: the lowest part not yet claimed in this run that does not exist (with
  // overwrite: that was not claimed in this run). Without overwrite the file is created here,
  // empty and exclusively (O_EXCL), so that no other recorder, in this process or another,
  // takes the same name before it is opened. Logs one line when an existing file was skipped
  // or is to be replaced. Empty when none of the first kMaxParts names is free. Thread-safe.
  std::string claim(const std::string& base);
  // A claimed `path` whose recording could not start: removes the empty file claim() left.
  static void give_back(const std::string& path);

  static constexpr std::uint32_t kMaxParts = 9999;

 private:
  std::mutex mutex_;
  bool overwrite_;
  std::map<std::string, std::uint32_t> next_part_;  // per base: the lowest part not yet claimed
};

}  // namespace hdstream
