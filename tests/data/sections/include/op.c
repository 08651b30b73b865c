#section support_code
#include "helpers.h"
#include <math.h>
#include "missing.h"

#section support_code_apply
#include "op_apply.h"
