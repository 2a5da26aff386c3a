// Marks the few symbols the library exports.
//
// The library is built with -fvisibility=hidden and a version script, because it
// is preloaded into arbitrary programs: any other symbol it exported could
// interpose on a same-named symbol of the program or of its libraries.
#pragma once

#define S4BXI_EXPORT __attribute__((visibility("default")))
