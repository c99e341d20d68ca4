// What `--key-file` (or a destination's key_file) is, decided once the transport is known, by
// every command after its presets: tcp and mtcp sessions authenticate with it as an HMAC key
// (64 hex digits, docs/SECURITY.md), srt encrypts with its text as the AES passphrase (10 to 79
// characters). Errors are one line that starts with where the file was named.
//   decide_session_key(plan.options.common, TransportKind::srt, "pass.txt", "--key-file");
//   // common.srt_passphrase holds the text; common.key stays unset
#pragma once

#include <string>
#include <string_view>

#include "app/options.hpp"

namespace hdstream {

// Sets options.key (tcp, mtcp) or options.srt_passphrase (srt) from the file at `path`, and
// clears the other; an empty path clears both. Throws UsageError "ORIGIN: what is wrong".
void decide_session_key(CommonOptions& options, TransportKind transport, const std::string& path,
                        std::string_view origin);

}  // namespace hdstream
