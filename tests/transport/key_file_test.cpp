// Key files (transport/key_file): hex or raw keys; wrong sizes, open permissions and bad digits
// are one clear line.
#include "transport/key_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "tests/protocol/test_keys.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

using test::key_of;

std::filesystem::path write_key(const std::string& name, const std::string& contents, mode_t mode) {
  auto path = test::scratch_dir("keys") / name;
  std::ofstream(path, std::ios::binary) << contents;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(KeyFile, HexAndRawKeysLoad) {
  const std::string hex(64, 'a');
  EXPECT_EQ(load_key_file(write_key("hex", hex + "\n", 0600)), key_of(0xaa));
  EXPECT_EQ(load_key_file(write_key("hex_nonl", hex, 0400)), key_of(0xaa));
  EXPECT_EQ(load_key_file(write_key("raw", std::string(32, '\x11'), 0600)), key_of(0x11));
}

TEST(KeyFile, WrongSizePermissionsOrDigitsAreOneClearLine) {
  auto expect_error = [](const std::filesystem::path& path, const std::string& needle) {
    try {
      load_key_file(path);
      ADD_FAILURE() << "loaded " << path;
    } catch (const KeyFileError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  expect_error(write_key("short", "abcd\n", 0600), "expected 64 hex digits");
  expect_error(write_key("open", std::string(64, 'a'), 0644), "chmod 600");
  // (append, not +: GCC 12 warns falsely of array bounds in string + literal, PR 105329)
  expect_error(write_key("notx", std::string(63, 'a').append("g"), 0600), "not a hex digit");
  expect_error(test::scratch_dir("keys-missing") / "none", "No such file");
}

// The control key's bearer token (--control-key-file): the key's 64 hex digits, nothing else.
TEST(KeyFile, ATokenMatchesTheKeyOnlyAsItsSixtyFourHexDigits) {
  const PresharedKey key = parse_key_text(std::string(64, 'a'), "test");
  EXPECT_TRUE(token_matches_key(std::string(64, 'a'), key));
  EXPECT_TRUE(token_matches_key(std::string(64, 'A'), key));  // the same bytes
  EXPECT_FALSE(token_matches_key(std::string(64, 'b'), key));
  EXPECT_FALSE(token_matches_key(std::string(63, 'a'), key));
  EXPECT_FALSE(token_matches_key(std::string(65, 'a'), key));
  EXPECT_FALSE(token_matches_key(std::string(63, 'a').append("g"), key));
  EXPECT_FALSE(token_matches_key(std::string(63, 'a').append("\n"), key));
  EXPECT_FALSE(token_matches_key(std::string(32, '\xaa'), key));  // the raw bytes are no token
  EXPECT_FALSE(token_matches_key("", key));
}

}  // namespace
}  // namespace hdstream
