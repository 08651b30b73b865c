/* DimShuffle's fixed C (opkit/core/tensor/shapes/alloc.py): its code, one line per axis, is the macro
   `dimshuffle` of opkit/templates/view.c.j2. */

#section support_code
#include "opkit_view.h"
