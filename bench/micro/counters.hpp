// Per-byte and per-chunk cost counters for Google Benchmark, in nanoseconds.
//   report_costs(state, frame_bytes, chunk_count);  // after the timing loop
#pragma once

#include <cstddef>
#include <cstdint>

#include <benchmark/benchmark.h>

namespace hdstream::bench {

// Sets bytes/s (Google Benchmark's own column) plus ns_per_byte and ns_per_chunk (each only when
// its amount is non-zero): `bytes` and `chunks` are what one iteration processes.
inline void report_costs(benchmark::State& state, std::size_t bytes, std::size_t chunks) {
  using benchmark::Counter;
  const auto iterations = static_cast<double>(state.iterations());
  // A rate of (amount x 1e-9) per second, inverted, is nanoseconds per unit.
  const auto kPerUnit = Counter::kIsIterationInvariantRate | Counter::kInvert;
  if (bytes > 0) {
    state.SetBytesProcessed(static_cast<std::int64_t>(iterations * static_cast<double>(bytes)));
    state.counters["ns_per_byte"] = Counter(static_cast<double>(bytes) * 1e-9, kPerUnit);
  }
  if (chunks > 0) {
    state.counters["ns_per_chunk"] = Counter(static_cast<double>(chunks) * 1e-9, kPerUnit);
  }
}

}  // namespace hdstream::bench
