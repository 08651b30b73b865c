"""pytest plugin (entry point `pytest11`): opkit fixtures and the --opkit-mode option."""

from __future__ import annotations

import pytest

from opkit.config import config as opkit_config


def pytest_addoption(parser):
    group = parser.getgroup("opkit")
    group.addoption("--opkit-mode", default=None, choices=("FAST_RUN", "FAST_COMPILE", "DebugMode"),
                    help="compile every opkit function in this mode (e.g. DebugMode)")


def pytest_configure(config):
    mode = config.getoption("--opkit-mode", default=None)
    if mode:
        opkit_config.mode = mode


def pytest_report_header(config):
    mode = config.getoption("--opkit-mode", default=None)
    return f"opkit mode: {mode}" if mode else None


@pytest.fixture
def opkit_rng(request):
    """Return a numpy Generator seeded from the test's name (reproducible per test)."""
    import zlib

    import numpy as np

    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def opkit_compiledir(tmp_path, monkeypatch):
    """Point opkit's compile cache at a private directory for this test."""
    path = tmp_path / "opkit-cache"
    monkeypatch.setenv("OPKIT_COMPILEDIR", str(path))
    with opkit_config.change_flags(compiledir=str(path)):
        yield path
