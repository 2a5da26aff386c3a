// Crossing: a file that exists only on the server's side, reached through an
// include directory.
#pragma once
#include "server_state.hpp"
