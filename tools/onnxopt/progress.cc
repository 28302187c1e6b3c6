#include "tools/onnxopt/progress.h"

#include <unistd.h>

#include <cstdio>

namespace onnxopt::cli {

namespace {

constexpr auto kQuietPeriod = std::chrono::seconds(1);
constexpr auto kRefresh = std::chrono::milliseconds(250);

}  // namespace

ProgressLine::ProgressLine(std::string command, bool enabled) : command_(std::move(command)) {
  if (enabled && isatty(STDERR_FILENO)) thread_ = std::thread([this] { Run(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressLine::Phase(std::string phase) {
  std::lock_guard lock(mutex_);
  phase_ = std::move(phase);
  detail_.clear();
  phase_start_ = Clock::now();
}

void ProgressLine::Detail(std::string detail) {
  std::lock_guard lock(mutex_);
  detail_ = std::move(detail);
}

void ProgressLine::Run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kRefresh, [this] { return stop_; })) {
    const auto elapsed = Clock::now() - phase_start_;
    if (phase_.empty() || elapsed < kQuietPeriod) continue;
    const double seconds = std::chrono::duration<double>(elapsed).count();
    std::string line = "onnxopt " + command_ + ": " + phase_;
    if (!detail_.empty()) line += " (" + detail_ + ")";
    // \r and "erase to the end of the line": the line is rewritten in place.
    std::fprintf(stderr, "\r\033[K%s %.1f s", line.c_str(), seconds);
    std::fflush(stderr);
    shown_ = true;
  }
  if (shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

}  // namespace onnxopt::cli
