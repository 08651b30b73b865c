"""theano.sparse: opkit has no sparse types. ``enable_sparse`` is False, what Theano's code and tests check
(Theano set it so without scipy); the constructors raise NotImplementedError naming the gap."""

enable_sparse = False


def _missing(name):
    def constructor(*args, **kwargs):
        raise NotImplementedError(f"theano.sparse.{name}: opkit has no sparse types")

    constructor.__name__ = name
    return constructor


csc_matrix = _missing("csc_matrix")
csr_matrix = _missing("csr_matrix")
dense_from_sparse = _missing("dense_from_sparse")
csc_from_dense = _missing("csc_from_dense")
csr_from_dense = _missing("csr_from_dense")

__all__ = ["csc_from_dense", "csc_matrix", "csr_from_dense", "csr_matrix", "dense_from_sparse", "enable_sparse"]
