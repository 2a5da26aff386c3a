// Allowed: a file of ipc/, a file of this side, a system header.
#include "shared_wire.hpp"
#include "../rank_side.hpp"
#include <vector>
