#include "livelock_watch.hpp"

#include "../model_options.hpp"

#include <cstdio>

namespace s4bxi::job {

void LivelockWatch::succeeded(double now)
{
  last_success_ = now;
  failures_ = 0;
  last_failure_.clear();
}

void LivelockWatch::failed(double now, unsigned rank, const std::string& what)
{
  failures_++;
  Repeated& repeated = last_failure_[rank];
  repeated.times = repeated.what == what ? repeated.times + 1 : 1;
  repeated.what = what;
  const double window = options::livelock_after_s();
  if (window <= 0 || failures_ < kMinFailures || now - last_success_ < window || not on_livelock)
    return;
  constexpr size_t kRanksNamed = 8;
  std::string repeats;
  size_t named = 0;
  for (const auto& [failing_rank, last] : last_failure_) {
    if (named++ == kRanksNamed)
      break;
    repeats += (repeats.empty() ? "" : "; ") + std::string("rank ") + std::to_string(failing_rank) + " repeats " +
               last.what + " (" + std::to_string(last.times) + " times in a row)";
  }
  if (last_failure_.size() > kRanksNamed)
    repeats += "; and " + std::to_string(last_failure_.size() - kRanksNamed) + " more ranks";
  char span[64];
  std::snprintf(span, sizeof span, "%.6g", now - last_success_);
  on_livelock("livelock: for " + std::string(span) + " s of simulated time " + std::to_string(failures_) +
              " operations failed and none succeeded (" + repeats +
              "); see s4bxi/livelock-after to wait longer or never stop");
}

} // namespace s4bxi::job
