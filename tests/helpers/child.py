"""Child processes on which the kernel enforces every mode bit, even for root (tests/cop/test_cache_env.py's
docstring says how), and GRAPH_CHILD, a child that compiles graphs into the cache; tests/cli runs them too."""

import ctypes
import json
import os
import subprocess
import sys
import textwrap

CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, PR_CAPBSET_DROP = 1, 2, 3, 24


def _drop_root_powers():
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


PROVE_UNPRIVILEGED = """
import os, tempfile
_probe = tempfile.mkdtemp()
os.chmod(_probe, 0o500)
try:
    open(os.path.join(_probe, "x"), "w")
except PermissionError:
    pass
else:
    raise SystemExit("the child can write into a read-only directory: permission bits are not enforced")
finally:
    os.chmod(_probe, 0o700)
    os.rmdir(_probe)
"""


def run_child(code, *args, unprivileged=False, env=None, timeout=300):
    """Run Python `code` in a child; with `unprivileged`, one on which mode bits are enforced. Return its JSON."""
    environ = {name: value for name, value in os.environ.items() if name != "OPKIT_NO_PCH"}
    environ.update({"PYTHONDONTWRITEBYTECODE": "1", **(env or {})})
    if unprivileged:
        code = PROVE_UNPRIVILEGED + code
    run = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                         env=environ, timeout=timeout,
                         preexec_fn=_drop_root_powers if unprivileged and os.getuid() == 0 else None)
    assert run.returncode == 0, f"child failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
    return json.loads(run.stdout.strip().splitlines()[-1])


GRAPH_CHILD = textwrap.dedent("""
    import json, os, sys, warnings
    if sys.argv[1] == "umask0":
        os.umask(0)
    import numpy as np, opkit, opkit.tensor as ot
    from opkit.cop.toolchain.extension import build_extension
    from opkit.cop.toolchain.identity import cache_key
    from opkit.cop.store.cache import default_cache, module_name_for
    out = {"warnings": []}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = ot.lvector("x")
        results = []
        for expression in sys.argv[2:]:
            try:
                f = opkit.function([x], eval(expression))
                results.append(f(np.arange(4)).tolist())
            except PermissionError as error:  # the cache cannot hold a module that must be built
                results.append(f"{type(error).__name__}: {error}")
        out["results"] = results
        if sys.argv[1] == "umask0":
            key = cache_key("a failed build", str(os.getpid()))
            try:
                default_cache().get_or_build(key, lambda d: build_extension("int x = ;", module_name_for(key), d),
                                             module_name=module_name_for(key))
            except opkit.CompileError as error:
                out["kept"] = error.source_path
    out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    print(json.dumps(out))
""")
