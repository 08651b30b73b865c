"""pytensor.link.c.cmodule: ``GCC_compiler``'s probes (``try_flags``, ``try_compile_tmp``) and ``default_blas_ldflags``.

The same functions as ``theano.gof.cmodule`` (opkit.compat.theano.gof.cmodule): they run opkit's
compiler. PyTensor's ``ModuleCache`` and ``compile_str`` are not here: opkit builds, names and caches
its modules itself (opkit.cop).
"""

from opkit.compat.theano.gof.cmodule import GCC_compiler, default_blas_ldflags, gcc_version

__all__ = ["GCC_compiler", "default_blas_ldflags", "gcc_version"]
