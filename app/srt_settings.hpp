// SRT settings from the command line: the passphrase read from --key-file, the key length, and
// the latency (default max(120 ms, 4 x RTT) on the sender).
//   SenderOptions o;  o.srt = srt_settings(send_options);   // throws UsageError
#pragma once

#include "app/options.hpp"
#include "transport/transport.hpp"

namespace hdstream {

SrtSettings srt_settings(const SendOptions& options);
SrtSettings srt_settings(const RecvOptions& options);

}  // namespace hdstream
