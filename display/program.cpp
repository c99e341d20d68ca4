#include "display/program.hpp"

#include <utility>

#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/log.hpp"

namespace hdstream {

class Program::FeedSink : public PictureSink {
 public:
  FeedSink(std::shared_ptr<Program> program, std::uint16_t stream)
      : program_(std::move(program)), stream_(stream) {}
  void show(const Picture& picture, const PictureFlags& flags) override {
    program_->offer(stream_, picture, flags);
  }

 private:
  std::shared_ptr<Program> program_;
  std::uint16_t stream_;
};

Program::Program(std::size_t streams) : streams_(streams), view_(std::make_shared<FeedView>(0)) {}

std::optional<std::string> Program::cut(int feed) {
  if (feed < 0 || static_cast<std::size_t>(feed) >= streams_) {
    return fmt::format("no feed {}: this receiver serves feeds 0 to {}", feed, streams_ - 1);
  }
  {
    // Under the picture lock, so the old feed's picture in flight cannot be taken for the new
    // feed's first: the cut and its request time change together.
    std::lock_guard offering(offering_);
    cut_requested_ns_ = steady_clock_ns();
    on_air_.store(feed, std::memory_order_relaxed);
  }
  logger("display")->info("program: cut to feed {}", feed);
  return std::nullopt;
}

std::shared_ptr<PictureSink> Program::sink_for(std::shared_ptr<Program> program,
                                               std::uint16_t stream) {
  return std::make_shared<FeedSink>(std::move(program), stream);
}

void Program::offer(std::uint16_t stream, const Picture& picture, const PictureFlags& flags) {
  if (on_air_.load(std::memory_order_relaxed) != stream) return;
  std::lock_guard offering(offering_);
  if (on_air_.load(std::memory_order_relaxed) != stream) return;  // cut away meanwhile
  view_->show(picture, flags);
  if (const std::int64_t requested = std::exchange(cut_requested_ns_, 0); requested != 0) {
    logger("display")->info("program: feed {} on air {:.1f} ms after the cut", stream,
                            static_cast<double>(steady_clock_ns() - requested) / 1e6);
  }
}

}  // namespace hdstream
