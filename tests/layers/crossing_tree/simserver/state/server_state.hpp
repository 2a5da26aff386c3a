// Crossing: the server reaching into the rank's side by name.
#pragma once
#include "preload/rank_side.hpp"
