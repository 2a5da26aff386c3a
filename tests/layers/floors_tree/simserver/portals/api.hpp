// Allowed: the Portals calls drive the NIC.
#pragma once
#include "../nic/nic.hpp"
#include "protocol.hpp"
