#pragma once
#include "sub/nested.h"
