"""The `pytensor` fixture of the bridge tests: import it into a test module (`from helpers.pytensor_fixture import
pytensor`), so that no module imports PyTensor before its compile directories point to a temporary directory."""

import importlib
import os
import pathlib
import sys

import pytest


@pytest.fixture(scope="module")
def pytensor(tmp_path_factory):
    """Import PyTensor with its compile directories (C modules, numba's cache) in a session temporary directory."""
    if sys.version_info < (3, 11):
        pytest.skip("PyTensor 3 needs Python >= 3.11; the pytensor extra is not installed on older Pythons")
    if "pytensor" not in sys.modules:
        base = tmp_path_factory.mktemp("pytensor-base-compiledir")
        flags = ",".join(f for f in [os.environ.get("PYTENSOR_FLAGS", ""), f"base_compiledir={base}"] if f)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PYTENSOR_FLAGS", flags)
            importlib.import_module("pytensor")  # PyTensor reads its flags once, at import
    import pytensor

    basetemp = pathlib.Path(str(tmp_path_factory.getbasetemp()))
    if basetemp not in pathlib.Path(pytensor.config.base_compiledir).parents:
        pytest.fail(f"PyTensor was imported before this module with base_compiledir "
                    f"{pytensor.config.base_compiledir}; the bridge tests must not write to the user's PyTensor cache")
    return pytensor
