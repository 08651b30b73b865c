#pragma once
#include "factor.h"
#define SCALE ((double)FACTOR)
