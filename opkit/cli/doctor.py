"""`opkit doctor`: check what building ops needs, and say how to fix each problem."""

from __future__ import annotations

import os
import sys


def add_commands(commands):
    """Add doctor to the `opkit` subcommands."""
    doctor = commands.add_parser("doctor", help="check the compiler, headers, cache and plugins")
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")
    doctor.set_defaults(run=run_doctor)


def platform_check(system: str) -> tuple[str, bool, str]:
    """Say plainly whether this operating system is supported."""
    if system in ("Linux", "Darwin"):
        return ("platform", True, f"{system}: supported")
    return ("platform", False, f"{system or 'this system'} is not supported: Linux and macOS are supported "
                               f"(on Windows, use WSL)")


def cache_check(path: str) -> tuple[str, bool, str]:
    """Check the cache directory: private to this user if it exists, creatable if not."""
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.exists(path):
        parent = path
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        ok = os.access(parent, os.W_OK | os.X_OK)
        detail = f"{path} (created on first compile)" if ok else (
            f"{path} does not exist and {parent} is not writable; fix: set OPKIT_COMPILEDIR to a directory you own")
        return ("cache directory", ok, detail)
    st = os.stat(path)
    if st.st_uid != os.getuid():
        return ("cache directory", False, f"{path} is owned by uid {st.st_uid}, not you; "
                                          f"fix: set OPKIT_COMPILEDIR to a directory you own")
    if st.st_mode & 0o022:
        return ("cache directory", False, f"{path} is writable by other users (mode {st.st_mode & 0o777:o}); "
                                          f"fix: chmod 700 {path}")
    if not os.access(path, os.W_OK | os.X_OK):
        return ("cache directory", False, f"{path} is not writable; fix: chmod u+rwx {path}")
    return ("cache directory", True, path)


def plugin_checks() -> list[tuple[str, bool, str]]:
    """Report each broken plugin as a problem, with how to fix or skip it."""
    import warnings

    from opkit.plugins.manager import PluginLoadWarning, fix_advice, load_plugins

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        state = load_plugins()
    loaded = sum(record.status == "loaded" for record in state.plugins)
    checks = [("plugins", True, f"{loaded} loaded, {len(state.ops)} ops")]
    for record in state.broken:
        checks.append((f"plugin {record.name}", False,
                       f"{record.distribution} {record.version}: {record.error}; {fix_advice(record)}"))
    return checks


def shipped_checks() -> list[tuple[str, bool, str]]:
    """List, per installed op, the signatures its package ships modules for that load on this machine, and the
    shipped modules that do not (what each was built for and why it does not fit; a damaged one is a problem)."""
    from opkit.plugins.manager import load_plugins

    state = load_plugins()
    checks = []
    for name, registrations in sorted(state.ops.items()):
        signatures, unusable = shipped_modules(name, registrations[0].obj)
        if signatures:
            checks.append(("runs without a compiler", True, f"{name}: {'; '.join(f'({s})' for s in signatures)}"))
        checks += [("shipped module", not damaged, f"{name} {detail}") for detail, damaged in unusable]
    if not checks:
        checks.append(("runs without a compiler", True, "no installed op ships compiled modules "
                                                        "(`opkit build OP --dtypes ... --into PACKAGE_DIR` adds them)"))
    return checks


def shipped_modules(name, op) -> tuple[list[str], list[tuple[str, bool]]]:
    """Return the signatures of `op`'s shipped modules that load here (sorted), and for each one that does not
    a line (its signature, what it was built for, why it does not fit) and whether it is damaged."""
    import pathlib

    from opkit.cli import CommandFailed
    from opkit.cli.ops import make_node
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.generate.region import Region
    from opkit.cop.store.shipped import built_for, entry_problem, shipped_dir, shipped_entries, shipped_key

    op_class = f"{type(op).__module__}.{type(op).__qualname__}"
    found, unusable = set(), []
    for meta in shipped_entries(shipped_dir(op)):
        entry = pathlib.Path(meta["entry"])
        if "op_class" not in meta:
            problem, damaged = entry_problem(entry)
            unusable.append((f"(a module in {entry}): not used: {problem}", damaged))
            continue
        if meta["op_class"] != op_class:
            continue
        ndims = meta.get("ndims") or []
        try:
            node = make_node(name, ",".join(meta.get("dtypes", [])),
                             ",".join(map(str, ndims)) if None not in ndims else None)
            key = shipped_key(collect_module(Region.from_nodes([node], lambda variable: True)))
        except (CommandFailed, TypeError, ValueError, NotImplementedError):
            key = ""  # no node of these dtypes here: another version of the op
        problem = entry_problem(entry, key)
        if problem is None:
            found.add(meta.get("signature", "?"))
        else:
            unusable.append((f"({meta.get('signature', '?')}) built for {built_for(meta)}: not used: {problem[0]}",
                             problem[1]))
    return sorted(found), unusable


def blas_check() -> tuple[str, bool, str]:
    """Name the BLAS that ops calling BLAS link (config.blas__ldflags), or say how to get one."""
    from opkit.cop.blas import describe

    try:
        return describe()
    except ValueError as exc:  # a malformed OPKIT_FLAGS: reported once, by the command itself
        return ("BLAS", False, str(exc))


def run_doctor(args):
    from opkit.config import config
    from opkit.cop.build.compiler import describe_toolchain

    import platform

    checks = [platform_check(platform.system()), *describe_toolchain(), ("Python", True, f"{sys.version.split()[0]} at {sys.executable}"),
              cache_check(config.compiledir), blas_check(), *plugin_checks(), *shipped_checks()]
    problems = sum(not ok for _, ok, _ in checks)
    if args.json:
        import json

        print(json.dumps({"problems": problems, "checks": [{"name": name, "ok": ok, "detail": detail}
                                                           for name, ok, detail in checks]}, indent=2))
        return 1 if problems else 0
    width = max(len(name) for name, _, _ in checks)
    for name, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'}  {name.ljust(width)}  {detail}")
    print(f"\n{problems} problem(s) found" if problems else "\neverything opkit needs is here")
    return 1 if problems else 0
