// Micro-benchmarks of the data path's pure stages on one frame of a 270 Mbps feed: packetize,
// XXH3 checksum, reassembler intake (copy path and two-phase), synthetic fill and verify.
// Each stage runs over the same bytes as BM_Memcpy so the reader sees its cost in memcpys.
//   build/bench/micro/hdstream_micro --benchmark_filter=Reassembler
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/micro/counters.hpp"
#include "pipeline/synthetic.hpp"
#include "protocol/checksum.hpp"
#include "protocol/packetizer.hpp"
#include "protocol/reassembler.hpp"

namespace hdstream::bench {
namespace {

// 270 Mbps at 29.97 fps is ~1.13 MB per frame; hdstream bench sends 1 MiB frames.
constexpr std::size_t kFrameBytes = 1 << 20;

std::size_t chunks_of(std::size_t frame_bytes, std::size_t chunk_bytes) {
  return (frame_bytes + chunk_bytes - 1) / chunk_bytes;
}

Frame make_frame(std::uint64_t seq) {
  Frame frame;
  frame.stream_id = 1;
  frame.seq = seq;
  frame.ready_ns = 1'000'000;
  frame.data.resize(kFrameBytes);
  fill_synthetic(frame);
  return frame;
}

// The physical limit: copying the bytes once, chunk by chunk.
void BM_Memcpy(benchmark::State& state) {
  const auto chunk_bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> source(kFrameBytes, std::byte{1}), target(kFrameBytes);
  for (auto _ : state) {
    for (std::size_t offset = 0; offset < kFrameBytes; offset += chunk_bytes) {
      std::memcpy(target.data() + offset, source.data() + offset,
                  std::min(chunk_bytes, kFrameBytes - offset));
    }
    benchmark::DoNotOptimize(target.data());
    benchmark::ClobberMemory();
  }
  report_costs(state, kFrameBytes, chunks_of(kFrameBytes, chunk_bytes));
}

void BM_Checksum(benchmark::State& state) {
  const auto chunk_bytes = static_cast<std::size_t>(state.range(0));
  const Frame frame = make_frame(0);
  const std::span<const std::byte> bytes(frame.data);
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (std::size_t offset = 0; offset < kFrameBytes; offset += chunk_bytes) {
      sum ^= payload_checksum(bytes.subspan(offset, std::min(chunk_bytes, kFrameBytes - offset)));
    }
    benchmark::DoNotOptimize(sum);
  }
  report_costs(state, kFrameBytes, chunks_of(kFrameBytes, chunk_bytes));
}

// Headers + XXH3 of every chunk; the payload is not copied (views into the frame).
void BM_Packetize(benchmark::State& state) {
  const auto chunk_bytes = static_cast<std::uint32_t>(state.range(0));
  const Frame frame = make_frame(0);
  std::vector<EncodedChunk> chunks;
  for (auto _ : state) {
    packetize(frame, chunk_bytes, chunks);
    benchmark::DoNotOptimize(chunks.data());
  }
  report_costs(state, kFrameBytes, chunks_of(kFrameBytes, chunk_bytes));
}

struct WireFrame {
  std::vector<MessageHeader> headers;
  std::vector<std::span<const std::byte>> payloads;
};

WireFrame to_wire(const Frame& frame, std::uint32_t chunk_bytes) {
  std::vector<EncodedChunk> chunks;
  packetize(frame, chunk_bytes, chunks);
  WireFrame wire;
  for (const auto& chunk : chunks) {
    MessageHeader header;
    decode_header(chunk.header, header);
    wire.headers.push_back(header);
    wire.payloads.push_back(chunk.payload);
  }
  return wire;
}

// `two_phase`: begin_chunk + copy into the slot (what the socket read does) + commit_chunk;
// otherwise push(), which copies from a payload the transport already holds.
void reassemble(benchmark::State& state, bool two_phase) {
  const auto chunk_bytes = static_cast<std::uint32_t>(state.range(0));
  const Frame frame = make_frame(0);
  WireFrame wire = to_wire(frame, chunk_bytes);
  FramePool pool(4);
  Reassembler reassembler(frame.stream_id, {.first_seq = 0}, pool);
  std::uint64_t seq = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < wire.headers.size(); ++i) {
      MessageHeader& header = wire.headers[i];
      header.frame_seq = seq;
      if (two_phase) {
        auto slot = reassembler.begin_chunk(header, 0);
        std::memcpy(slot.destination.data(), wire.payloads[i].data(), wire.payloads[i].size());
        reassembler.commit_chunk(header, 0);
      } else {
        reassembler.push(header, wire.payloads[i], 0);
      }
    }
    FramePtr whole = reassembler.pop(0);
    if (!whole) state.SkipWithError("frame not reassembled");
    ++seq;
  }
  report_costs(state, kFrameBytes, wire.headers.size());
}

void BM_ReassemblerPush(benchmark::State& state) {
  reassemble(state, false);
}
void BM_ReassemblerTwoPhase(benchmark::State& state) {
  reassemble(state, true);
}

// One synthetic frame after another through `make`, which writes frame.seq's content.
template <typename Make>
void synthetic_frames(benchmark::State& state, Make make) {
  Frame frame = make_frame(0);
  for (auto _ : state) {
    ++frame.seq;
    make(frame);
    benchmark::DoNotOptimize(frame.data.data());
  }
  report_costs(state, kFrameBytes, 0);
}

void BM_SyntheticFill(benchmark::State& state) {
  synthetic_frames(state, fill_synthetic);
}

// What a pooled buffer costs per frame: canaries, stamp and the content checksum.
void BM_SyntheticRestamp(benchmark::State& state) {
  synthetic_frames(state, restamp_synthetic);
}

void BM_SyntheticVerify(benchmark::State& state) {
  const Frame frame = make_frame(0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify_synthetic(frame));
  }
  report_costs(state, kFrameBytes, 0);
}

// Chunk sizes: 16 KiB, the 64 KiB default, 256 KiB, 1 MiB (one chunk per frame).
void chunk_sizes(benchmark::internal::Benchmark* bench) {
  for (std::int64_t size : {16 << 10, 64 << 10, 256 << 10, 1 << 20}) bench->Arg(size);
}

BENCHMARK(BM_Memcpy)->Apply(chunk_sizes);
BENCHMARK(BM_Checksum)->Apply(chunk_sizes);
BENCHMARK(BM_Packetize)->Apply(chunk_sizes);
BENCHMARK(BM_ReassemblerPush)->Apply(chunk_sizes);
BENCHMARK(BM_ReassemblerTwoPhase)->Apply(chunk_sizes);
BENCHMARK(BM_SyntheticFill);
BENCHMARK(BM_SyntheticRestamp);
BENCHMARK(BM_SyntheticVerify);

}  // namespace
}  // namespace hdstream::bench
