// Allowed: the job control builds on World.
#pragma once
#include "../world.hpp"
