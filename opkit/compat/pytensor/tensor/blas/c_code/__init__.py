"""pytensor.tensor.blas.c_code: ``blas_headers`` (the BLAS prototypes, opkit.cop.blas)."""
