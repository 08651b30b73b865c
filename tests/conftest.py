"""Shared fixtures: no test touches the user's real compile cache."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_compiledir(tmp_path_factory):
    """Point OPKIT_COMPILEDIR and config.compiledir at a session temporary directory."""
    from opkit.config import config

    path = tmp_path_factory.mktemp("opkit-compiledir")
    old = config.compiledir
    with pytest.MonkeyPatch.context() as patch:
        # The environment variable reaches subprocesses, which read config afresh.
        patch.setenv("OPKIT_COMPILEDIR", str(path))
        config.compiledir = str(path)
        try:
            yield path
        finally:
            config.compiledir = old
