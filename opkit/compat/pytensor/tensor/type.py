"""pytensor.tensor.type: TensorType and the variable constructors (``matrix``, ``iscalars``...), opkit.tensor's;
also PyTensor's int8, int16 and complex constructors (``bscalar``... ``wrow``... ``ztensor7``) and its dtype lists."""

from opkit.compat.pytensor.tensor._namespace import *  # noqa: F403
from opkit.compat.pytensor.tensor._namespace import __all__ as _names
from opkit.core.tensor.types.constructors import small_int_and_complex_types as _small_int_and_complex_types
from opkit.scalar import continuous_types as _continuous, discrete_dtypes as _discrete

_SMALL_INTS = _small_int_and_complex_types()  # b/w/c/z: int8, int16, complex64, complex128 of every kind
globals().update(_SMALL_INTS)
discrete_dtypes = list(_discrete)
continuous_dtypes = [t.dtype for t in _continuous]

__all__ = [*_names, *_SMALL_INTS, "discrete_dtypes", "continuous_dtypes"]

# PyTensor's dtype-name lists, DenseTensorType and the comparison DebugMode skips with.
from opkit.tensor import TensorType as DenseTensorType  # noqa: E402
from opkit.compat.theano.tensor.basic import complex_dtypes, float_dtypes, int_dtypes, integer_dtypes, uint_dtypes  # noqa: E402
from opkit.compat.theano.tensor.type import values_eq_approx_always_true  # noqa: E402
from opkit.core.graph import Variable  # noqa: E402

__all__ += ["DenseTensorType", "Variable", "complex_dtypes", "float_dtypes", "int_dtypes", "integer_dtypes",
            "uint_dtypes", "values_eq_approx_always_true"]

# PyTensor's lists of TensorType instances by kind (pytensor/tensor/type.py), the same objects as Theano's.
from opkit.compat.theano.tensor.basic import (complex_matrix_types, complex_scalar_types, complex_types,  # noqa: E402
                                              complex_vector_types, float_matrix_types, float_scalar_types,
                                              float_types, float_vector_types, int_matrix_types, int_scalar_types,
                                              int_types, int_vector_types)

__all__ += ["complex_matrix_types", "complex_scalar_types", "complex_types", "complex_vector_types",
            "float_matrix_types", "float_scalar_types", "float_types", "float_vector_types", "int_matrix_types",
            "int_scalar_types", "int_types", "int_vector_types"]
