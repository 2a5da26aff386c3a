// Crossing: a relative path into the server's folder.
#include "../../simserver/state/server_state.hpp"
