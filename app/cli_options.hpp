// The option groups the subcommands share (app/cli.cpp puts them together): each adds its
// options as text and a finish_* step converts them once parsing succeeded, so that the error
// names the option and a default is written once (app/options.hpp).
//   CommonText text;  add_common(command, options, text);  ...  finish_common(command, options,
//   text);
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "common/units.hpp"
#include "transport/factory.hpp"

namespace hdstream {

// --srt-fec: the error text names what to fix (transport/srt/srt_fec.hpp).
extern const CLI::Validator kSrtFec;

// What every command takes (--stats, --interval, --config, the key files, --web-config), as
// typed until finish_common().
struct CommonText {
  std::string stats = "text";
  std::string interval = "1s";
  std::string config;
  std::string key_file;
  std::string control_key_file;
  std::string web_config;
};

void add_common(CLI::App& command, CommonOptions& options, CommonText& text);
void finish_common(const CLI::App& command, CommonOptions& options, const CommonText& text);

// The key file, in a command whose transport the command line alone decides (recv, demo, a
// listening bench); send and check decide it in plan_send, after the presets.
void decide_key(CommonOptions& options, TransportKind transport);

// Where a receiving command's frames go (--output, repeatable) and how screens show them.
void add_outputs(CLI::App& command, std::vector<std::string>& outputs, bool& fullscreen,
                 std::string& layout, std::string& audio_output,
                 std::chrono::nanoseconds& silence_alarm, const std::string& output_help);

CLI::Option* add_streams(CLI::App& command, std::size_t& streams);
CLI::Option* add_transport(CLI::App& command, std::string& transport);
void add_sources(CLI::App& command, std::vector<std::string>& sources);
void add_audio_sources(CLI::App& command, std::vector<std::string>& sources,
                       std::uint8_t& channels);

// --max-memory: "auto" or a size of at least 1M; parse_max_memory gives 0 for "auto" (the
// receiver's default, transport/frame_memory.hpp).
CLI::Option* add_max_memory(CLI::App& command, std::string& text);
std::uint64_t parse_max_memory(const std::string& text);

// --mux none|ts as text; finish_mux() checks it against a transport the command line decides
// (recv's; send's may come from a preset, and plan_send checks that wire).
CLI::Option* add_mux(CLI::App& command, std::string& mux, const std::string& help);
Mux finish_mux(const std::string& text, TransportKind transport);

// --chunk-size: a chunk's payload, 1K to 4M.
std::uint32_t chunk_bytes(const std::string& text);

// The options as typed, until finish_send_options() reads them. They start as the typed
// defaults (app/options.hpp) spelled as a user types them: a default is written once, there, and
// --help shows it.
struct SendText {
  explicit SendText(const SendOptions& defaults = SendOptions{})
      : rate(spell_rate(defaults.rate_bps)),
        duration(spell_duration(defaults.duration)),
        rtt(spell_duration(defaults.expected_rtt)),
        chunk(spell_bytes(defaults.chunk_bytes)),
        latency(spell_duration(defaults.latency)),
        transport(to_string(defaults.transport)),
        patience(spell_duration(defaults.connect_patience)),
        reconnect(defaults.reconnect_patience == kForever
                      ? "forever"
                      : spell_duration(defaults.reconnect_patience)),
        phase(defaults.align_frames ? "aligned" : "spread"),
        mux(to_string(defaults.mux)),
        ts_audio(to_string(defaults.ts_audio)) {}
  std::string rate, duration, rtt, chunk, latency, transport, patience, reconnect, phase, report,
      mux, ts_audio;
};

// The options `send` and `check` share: what to send, where, and how.
void add_send_options(CLI::App& command, SendOptions& send, SendText& text);
void finish_send_options(SendOptions& send, const SendText& text);

}  // namespace hdstream
