"""The tutorial's VectorTimesVector op as a pip-installable opkit plugin."""

from vector_times_vector.op import VectorTimesVector

__all__ = ["VectorTimesVector"]
