// Up a floor: the rank processes may not know the job control.
#pragma once
#include "job_control.hpp"
