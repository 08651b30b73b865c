"""Register VectorTimesVector with opkit (entry point `vector_times_vector` in the group `opkit`)."""

import opkit


@opkit.hookimpl
def register_ops(register):
    """Make the op available as opkit.ops.vector_times_vector."""
    from vector_times_vector.op import VectorTimesVector

    register(VectorTimesVector)
