// Micro-benchmark of the per-frame stats update the data path does (relaxed atomics), beside a
// plain memcpy of one chunk header: the counters must stay noise next to the bytes they count.
//   build/bench/micro/hdstream_micro --benchmark_filter=Stats
#include <array>
#include <cstring>

#include <benchmark/benchmark.h>

#include "bench/micro/counters.hpp"
#include "protocol/wire.hpp"
#include "stats/registry.hpp"

namespace hdstream::bench {
namespace {

void BM_StatsAddFrame(benchmark::State& state) {
  StatsRegistry stats(Role::recv, 1, "tcp");
  StreamCounters& counters = stats.stream(0);
  std::int64_t now_ns = 1;
  for (auto _ : state) {
    counters.add_frame(1 << 20, ++now_ns);
  }
  report_costs(state, 0, 1);  // "chunk" here is one update
}

void BM_MemcpyHeader(benchmark::State& state) {
  std::array<std::byte, kHeaderBytes> source{}, target{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(source.data());
    std::memcpy(target.data(), source.data(), kHeaderBytes);
    benchmark::ClobberMemory();
  }
  report_costs(state, kHeaderBytes, 1);
}

// Snapshots are taken on a timer (1/s): cheap enough to be irrelevant, measured for the record.
void BM_StatsSample(benchmark::State& state) {
  StatsRegistry stats(Role::recv, static_cast<std::size_t>(state.range(0)), "tcp");
  for (auto _ : state) {
    benchmark::DoNotOptimize(stats.sample());
  }
  report_costs(state, 0, 1);
}

BENCHMARK(BM_StatsAddFrame);
BENCHMARK(BM_MemcpyHeader);
BENCHMARK(BM_StatsSample)->Arg(5)->Arg(16);

}  // namespace
}  // namespace hdstream::bench
