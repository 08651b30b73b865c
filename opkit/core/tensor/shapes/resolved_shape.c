/* ResolvedShape's fixed C (opkit/core/tensor/shapes/reshape.py): the shape helpers it shares with Reshape.
   Its code, which reads one int64 scalar input per source axis, is templates/resolved_shape.c.j2. */

#section support_code
#include "opkit_reshape.h"
