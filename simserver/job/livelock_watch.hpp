// Stops a run whose ranks only repeat operations that fail: a program that
// retries forever against a disabled portal (flow control) or a target that
// drops everything keeps simulated time running, so it is not a deadlock,
// yet it never ends. The sign: for `s4bxi/livelock-after` simulated seconds,
// operations kept failing (at least kMinFailures of them) and not one
// succeeded anywhere. The report says what each rank repeats.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace s4bxi::job {

class LivelockWatch {
public:
  static constexpr uint64_t kMinFailures = 1000;

  // Called with the one-sentence report when a livelock is seen.
  std::function<void(const std::string&)> on_livelock;

  // An operation of any rank completed successfully at simulated time `now`.
  void succeeded(double now);
  // An operation of `rank` failed; `what` says which (call, target) and how.
  void failed(double now, unsigned rank, const std::string& what);

private:
  struct Repeated {
    std::string what;
    uint64_t times = 0;
  };
  double last_success_ = 0;
  uint64_t failures_ = 0; // since the last success
  std::map<unsigned, Repeated> last_failure_; // by rank
};

} // namespace s4bxi::job
