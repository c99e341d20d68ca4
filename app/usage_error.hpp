// Thrown for configuration a user must fix (exit code 2), with one line naming what to fix.
#pragma once

#include <stdexcept>

namespace hdstream {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hdstream
