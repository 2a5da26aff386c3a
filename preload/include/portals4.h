/*
 * portals4.h -- the default binary flavour of the emulator's Portals 4 header.
 *
 * The emulator serves two binary interfaces from one core (see docs/abi.md
 * in its sources): include/sandia/portals4.h (32-bit handles, the ABI
 * of Sandia's open reference implementation) and include/bxi/portals4.h
 * (pointer-sized handles, the ABI of Atos's BXI portals4.h). A plain
 * #include <portals4.h> gets the default one, the Sandia flavour: it is the
 * ABI of the openly available implementation that Portals programs and
 * libraries are commonly built against off a BXI machine. Build against the
 * BXI flavour with -I<includedir>/bxi (pkg-config portals4-bxi).
 */
#include "sandia/portals4.h"
