// Writes the report of `hdstream check --acceptance` an engineer attaches to a link's sign-off:
// `.html`, one self-contained page (plots inline, prints well to PDF); `.md`, Markdown with its
// plots as PNGs beside it. (`.json` is acceptance/acceptance_result.hpp's document, written by
// the core.)
//   write_acceptance_report("pdx-sea.html", result);
#pragma once

#include <filesystem>

#include "acceptance/acceptance_result.hpp"

namespace hdstream {

// Throws std::runtime_error naming the path when it cannot be written.
void write_acceptance_report(const std::filesystem::path& path, const AcceptanceResult& result);

}  // namespace hdstream
