// Whether a feed's next session, after its last one broke off (an outage), continues that
// session's recording in the same file, the outage a gap in its timeline; or why the recording
// goes on in the next numbered file instead (pipeline/recording_names.hpp): the picture format
// changed, the sender started over (its sequence numbers began again), or it claims to have
// skipped far more frames than the outage lasted (a broken or hostile HELLO must not stretch the
// file's timeline by hours).
//   const std::string why = recording_break(recorded, next_seq_at_break, hello, outage);
//   if (why.empty()) { /* the same file goes on */ } else { /* log why; a new file */ }
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "protocol/handshake.hpp"

namespace hdstream {

// Beyond the outage's own length, the frames a resumed sender may have counted before the
// receiver noticed the break: what was in flight, and the time the receiver took to notice a
// silent path (transport/tcp_tuning.hpp's stall timeout: 5 s, or 20 RTTs on a long path).
inline constexpr std::chrono::seconds kResumptionSlack{60};

// Empty when the session described by `hello` continues the recording of `recorded`, whose
// last session broke off `outage` ago with every frame below `next_seq_at_break` delivered or
// counted; otherwise one phrase saying why not, for a log line.
std::string recording_break(const FeedDescriptor& recorded, std::uint64_t next_seq_at_break,
                            const Hello& hello, std::chrono::nanoseconds outage);

}  // namespace hdstream
