// Found beside op.c, which is on the include path, not beside this header.
#include "common.h"
#include "nested.h"
static const int nested_value = 1;
