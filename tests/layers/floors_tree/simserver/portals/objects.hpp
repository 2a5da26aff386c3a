// Up a floor: what World holds may not know the NIC model.
#pragma once
#include "../nic/nic.hpp"
