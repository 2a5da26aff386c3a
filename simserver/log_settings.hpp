// --log=... values checked before SimGrid reads them: SimGrid's parser aborts
// the process (xbt_die, a backtrace, exit 134) on a setting it cannot read,
// where the launcher owes the user one sentence and exit status 2.
#pragma once

#include <optional>
#include <string>

namespace s4bxi {

// Nullopt if SimGrid's xbt_log_control_set() accepts `settings` (the text
// after --log=), otherwise one sentence naming the bad part and what is allowed.
std::optional<std::string> check_log_settings(const std::string& settings);

} // namespace s4bxi
