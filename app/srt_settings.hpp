// SRT settings from the command line: the passphrase read from --key-file, the key length, the
// latency (the sender's as its transport chooses it: latency_budget() in
// transport/feed_request.hpp) and the FEC filter (--srt-fec).
//   SenderOptions o;  o.srt = srt_settings(send_options);   // throws UsageError
#pragma once

#include "app/options.hpp"
#include "transport/transport.hpp"

namespace hdstream {

SrtSettings srt_settings(const SendOptions& options);
SrtSettings srt_settings(const RecvOptions& options);

}  // namespace hdstream
