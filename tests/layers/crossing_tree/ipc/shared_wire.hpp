// Spoken by both sides: including it is allowed from either.
#pragma once
