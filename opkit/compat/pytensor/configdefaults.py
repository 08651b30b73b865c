"""pytensor.configdefaults: ``config``, opkit's flags as PyTensor code reads them.

Every flag is opkit's ``config`` (reading and setting it, ``change_flags`` too), but ``cxx``:
PyTensor's is the compiler found ("" when there is none, the test of "can C run"), opkit's is the
compiler asked for ("" meaning "find g++, clang++ or c++"). PyTensor flags opkit has no use for read
as PyTensor's defaults.
"""

from opkit.config import config as _config

_PYTENSOR_ONLY = {"DebugMode__patience": 10, "on_opt_error": "warn", "compute_test_value": "off"}


class PyTensorConfig:
    def __getattr__(self, name):
        if name == "cxx":
            return _compiler()
        if name in _PYTENSOR_ONLY and not hasattr(type(_config), name):
            return _PYTENSOR_ONLY[name]
        return getattr(_config, name)

    def __setattr__(self, name, value):
        setattr(_config, name, value)

    def change_flags(self, **changes):
        return _config.change_flags(**{k: v for k, v in changes.items() if k not in _PYTENSOR_ONLY})


def _compiler():
    from opkit.cop.build.compiler import find_compiler
    from opkit.errors import CompileError

    try:
        return " ".join(find_compiler().command)
    except CompileError:
        return ""


config = PyTensorConfig()

__all__ = ["config"]
