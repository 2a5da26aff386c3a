// Allowed: the NIC model builds on World.
#pragma once
#include "../world.hpp"
