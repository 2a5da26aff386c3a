// Up a floor: the NIC model may not know the Portals calls.
#include "nic.hpp"
#include "../portals/api.hpp"
