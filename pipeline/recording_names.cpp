#include "pipeline/recording_names.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/log.hpp"

namespace hdstream {

std::string numbered_recording_path(const std::string& base, std::uint32_t part) {
  if (part <= 1) return base;
  const std::filesystem::path path(base);
  std::filesystem::path numbered = path.parent_path() / path.stem();
  numbered += "-" + std::to_string(part) + path.extension().string();
  return numbered.string();
}

std::string RecordingNames::claim(const std::string& base) {
  std::lock_guard lock(mutex_);
  std::uint32_t& part = next_part_.try_emplace(base, 1).first->second;
  const bool first = part == 1;  // later claims are this run's own next parts: no news
  while (part <= kMaxParts) {
    const std::string path = numbered_recording_path(base, part++);
    if (overwrite_) {
      if (std::filesystem::exists(path)) {
        logger("media")->info("replacing '{}' (--overwrite)", path);
      }
      return path;
    }
    // Created here, exclusively: between a check for the name and the writer's open, another
    // receiver recording into the same directory could take it.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
      // A name in use is kept, unless it is no file at all but a place to write to (a FIFO
      // another program reads, a device): then the recording is meant to go there.
      std::error_code ignored;
      const auto type = std::filesystem::status(path, ignored).type();
      if (type != std::filesystem::file_type::fifo &&
          type != std::filesystem::file_type::character) {
        continue;
      }
      return path;
    }
    // Any other failure (no such directory, no permission) is the writer's to report when it
    // opens the same path.
    if (fd >= 0) ::close(fd);
    if (first && path != base) {
      logger("media")->warn("'{}' exists and is kept: recording to '{}' (--overwrite replaces it)",
                            base, path);
    }
    return path;
  }
  logger("media")->error("'{}': the first {} numbered names beside it are taken", base, kMaxParts);
  return {};
}

void RecordingNames::give_back(const std::string& path) {
  std::error_code ignored;  // file_size is -1 then: nothing is removed
  if (!path.empty() && std::filesystem::file_size(path, ignored) == 0) {
    std::filesystem::remove(path, ignored);
  }
}

}  // namespace hdstream
