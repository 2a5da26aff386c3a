// On no floor: a folder the check does not know.
#pragma once
