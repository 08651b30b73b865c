"""Skips for what the README's test command does not install: a system program (Graphviz's `dot`) and the `cuda`
extra (NVRTC, CuPy). Each reason names what is missing and the line that installs it, as the torch and JAX tests
do; a test that needs one of them skips where it is absent and never fails for it.

.ci/run's main run has neither (the README's venv, `dot` hidden from PATH); its second run installs both and runs
again the tests that skipped naming one of INSTALL_LINES (.ci/skipped_for.py).
"""

import shutil

import pytest

GRAPHVIZ_INSTALL = "apt-get install graphviz"
CUDA_INSTALL = "pip install 'opkit-sdk[cuda]'"
# What a skip reason names when the test needs what the README's test command does not install.
INSTALL_LINES = (GRAPHVIZ_INSTALL, CUDA_INSTALL)

DOT_MISSING = (f"needs Graphviz's dot, which is not on PATH: {GRAPHVIZ_INSTALL} (macOS: brew install graphviz); "
               ".ci/run installs it")
NVRTC_MISSING = f"needs NVRTC, which is not installed: {CUDA_INSTALL}"
CUPY_MISSING = f"needs CuPy, which is not installed: {CUDA_INSTALL}"


def has_dot() -> bool:
    return shutil.which("dot") is not None


def has_nvrtc() -> bool:
    """Whether opkit finds NVRTC here (pip's nvidia-cuda-nvrtc-cu12 wheel, or OPKIT_NVRTC), as it compiles with it."""
    from opkit.cop.toolchain import nvrtc
    from opkit.errors import CompileError

    try:
        nvrtc.find_library()
    except CompileError:
        return False
    return True


def has_cupy() -> bool:
    from importlib.util import find_spec

    return find_spec("cupy") is not None


needs_dot = pytest.mark.skipif(not has_dot(), reason=DOT_MISSING)
needs_nvrtc = pytest.mark.skipif(not has_nvrtc(), reason=NVRTC_MISSING)
needs_cupy = pytest.mark.skipif(not has_cupy(), reason=CUPY_MISSING)


def variants(name: str, here: bool, needs) -> list:
    """Parametrize a test whose outcome depends on whether `name` is installed: the variant for what is here runs,
    the other skips. "with-NAME" skips naming the install line where it is absent (.ci/run runs it again with the
    extra installed); "without-NAME" skips where it is present. The test gets True or False."""
    return [pytest.param(True, id=f"with-{name}", marks=needs),
            pytest.param(False, id=f"without-{name}", marks=pytest.mark.skipif(
                here, reason=f"{name} is installed here: the with-{name} variant runs"))]
