// Allowed, through the include directory: World holds the Portals objects.
#pragma once
#include "portals/objects.hpp"
