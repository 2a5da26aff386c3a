// The values of a SimGrid XML platform file that SimGrid either aborts on
// (a host with 0 cores, a negative bandwidth: xbt_assert, exit 134) or
// accepts although no run can use them (a zero bandwidth never delivers, a
// negative latency goes back in time; a split-duplex link with a state
// profile, on which it aborts later): checked before SimGrid reads the file.
#pragma once

#include <string>

namespace s4bxi::platform {

// Throws std::runtime_error with one sentence naming the element, the value
// and what is allowed.
void check_platform_values(const std::string& path, const std::string& xml);

} // namespace s4bxi::platform
