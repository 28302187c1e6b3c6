#pragma once
// A one-line status on stderr for commands that can take long (optimize, replay): shown
// only when stderr is a terminal and a phase has lasted more than a second, refreshed a
// few times a second by a background thread, erased when the command ends. Pipes, logs
// and `-q` get nothing.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace onnxopt::cli {

class ProgressLine {
 public:
  // `enabled` is false for -q; the line also stays off when stderr is not a terminal.
  ProgressLine(std::string command, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // A new phase ("loading MODEL", "optimizing", "saving OUTPUT"): its clock starts now.
  void Phase(std::string phase);
  // What the current phase is doing ("iteration 3, 58041 nodes").
  void Detail(std::string detail);

 private:
  void Run();

  using Clock = std::chrono::steady_clock;
  std::string command_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string phase_, detail_;
  Clock::time_point phase_start_ = Clock::now();
  bool stop_ = false;
  bool shown_ = false;
  std::thread thread_;
};

}  // namespace onnxopt::cli
