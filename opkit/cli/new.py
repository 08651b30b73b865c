"""`opkit new NAME`: scaffold an op package whose own tests pass once it is pip-installed."""

from __future__ import annotations

import keyword
import os
import re
import shlex
import sys

import jinja2

from opkit import __version__
from opkit.cli.errors import BadArguments, CommandFailed
from opkit.plugins.builtin import BUILTIN_OP_NAMES

# template (under opkit/templates/new) -> path in the new project; {package} is filled in
TEMPLATES = {
    "pyproject.toml.j2": "pyproject.toml",
    "README.md.j2": "README.md",
    "gitignore.j2": ".gitignore",
    "package/__init__.py.j2": "src/{package}/__init__.py",
    "package/op.py.j2": "src/{package}/op.py",
    "package/plugin.py.j2": "src/{package}/plugin.py",
    "package/op.c.j2": "src/{package}/{package}.c",
    "tests/test_op.py.j2": "tests/test_{package}.py",
}
# `opkit new NAME --cuda` adds these: the GPU op, its host code and kernel, its tests
CUDA_TEMPLATES = {
    "package/op_gpu.py.j2": "src/{package}/op_gpu.py",
    "package/op.cu.j2": "src/{package}/{package}_gpu.cu",
    "tests/test_op_gpu.py.j2": "tests/test_{package}_gpu.py",
}
_PROJECT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")


def scaffold_names(name: str) -> dict:
    """Return the names a project NAME implies: distribution, package, op class and op name.

    The project directory keeps NAME as given; `my-fancy-ops` and `my_fancy_ops` both give the
    package `my_fancy_ops` and the op class `MyFancyOps`.
    """
    package = re.sub(r"[-.]+", "_", name).lower()
    if not _PROJECT_NAME.match(name) or not package.isidentifier() or keyword.iskeyword(package):
        raise BadArguments(f"{_shown(name)} cannot name an op package: it must make a Python identifier; start "
                           f"with a letter, then use letters, digits, '_', '-' or '.' (e.g. my_ops)")
    shadowed = _shadowed_by(package)
    if shadowed:
        raise BadArguments(f"{name!r} would shadow {shadowed}; choose another name (e.g. my_{package})")
    class_name = "".join(part.capitalize() for part in package.split("_") if part) or "Op"
    # The distribution name in normalized form (PEP 503), as installers record it anyway.
    dist = re.sub(r"[-_.]+", "-", name).lower()
    return {"directory": name, "dist": dist, "package": package, "class_name": class_name, "op_name": package}


def _shown(name: str) -> str:
    """Return `name` quoted for a message, cut short if long (a 300-character name is not worth reprinting)."""
    return repr(name) if len(name) <= 60 else f"{name[:40]!r}... ({len(name)} characters)"


# Room a package name must leave in one file name: the longest scaffold file name made from it
# (tests/test_{package}.py) while it is written as a temporary (".~" and a process id, at most 7 digits).
_NAME_RESERVE = max(len(part.replace("{package}", "")) for relative in TEMPLATES.values()
                    for part in relative.split("/") if "{package}" in part) + len(".~") + 7
_CUDA_NAME_RESERVE = max(len(part.replace("{package}", "")) for relative in CUDA_TEMPLATES.values()
                         for part in relative.split("/") if "{package}" in part) + len(".~") + 7


def check_name_fits(name: str, directory: str, cuda: bool = False):
    """Raise BadArguments if the files made from `name` would have names longer than `directory`'s file system allows."""
    existing = os.path.abspath(directory)
    while not os.path.isdir(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    try:
        limit = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    longest = limit - (max(_NAME_RESERVE, _CUDA_NAME_RESERVE) if cuda else _NAME_RESERVE)
    if len(os.fsencode(name)) > longest:
        made = "tests/test_NAME_gpu.py" if cuda and _CUDA_NAME_RESERVE > _NAME_RESERVE else "tests/test_NAME.py"
        raise BadArguments(f"{_shown(name)} is too long: the file system of {existing} holds file names of at most "
                           f"{limit} bytes, and the scaffold makes {made} from it, so NAME may have at "
                           f"most {longest} characters; choose a shorter name (e.g. my_ops)")


def _shadowed_by(package: str) -> str:
    """Return what the package or op name `package` would hide, or '' if nothing."""
    if package in sys.stdlib_module_names or package in ("opkit", "numpy", "pytest", "tests", "test"):
        return f"the module {package!r}"
    if package in BUILTIN_OP_NAMES:
        return f"the built-in op opkit.ops.{package}"
    return ""


def render_scaffold(names: dict, target, params=False, cuda=False) -> list[str]:
    """Write the project for `names` into directory `target`; return the files.

    A file whose content is already right is left alone, so re-rendering keeps its mtime.
    """
    env = jinja2.Environment(loader=jinja2.PackageLoader("opkit", "templates/new"), autoescape=False,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True,
                             lstrip_blocks=True)
    written = []
    for template, relative in {**TEMPLATES, **(CUDA_TEMPLATES if cuda else {})}.items():
        path = os.path.join(target, relative.format(**names))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = env.get_template(template).render(opkit_version=__version__, params=params, cuda=cuda, **names)
        _write_if_changed(path, text)
        written.append(path)
    return written


def _write_if_changed(path: str, text: str):
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    except OSError:
        pass
    temporary = f"{path}.~{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)  # atomic: a concurrent reader sees the old file or the new one


def run_new(args):
    names = scaffold_names(args.name)
    check_name_fits(args.name, args.directory, cuda=args.cuda)
    target = os.path.normpath(os.path.join(args.directory, args.name))
    if os.path.exists(target):
        raise CommandFailed(f"{target} already exists; choose another NAME or remove it")
    try:
        written = render_scaffold(names, target, params=args.params, cuda=args.cuda)
    except OSError as exc:
        where = os.fsdecode(exc.filename) if exc.filename is not None else target
        raise CommandFailed(f"cannot create the project in {target}: {where}: {exc.strerror or exc}; "
                            "check --directory (it must be a directory you can write, or one opkit can "
                            "create)") from None
    for path in written:
        print(f"created {path}")
    if not (os.path.isabs(target) or target.startswith(".")):
        target = f"./{target}"  # pip needs the ./ to read it as a directory
    print(next_steps(names, target, cuda=args.cuda))
    return 0


def next_steps(names: dict, target: str, cuda: bool = False) -> str:
    """Return what `opkit new` prints after the files: the commands that install, test and show the op.

    The README's "Write your own op" shows these lines as they are (tests/docs/test_readme.py compares them).
    """
    op = names["op_name"]
    steps = [(f"pip install -e {shlex.quote(target + '[test]')}",
              "-e: your edits apply at once; [test]: pytest"),
             (f"python -m pytest {shlex.quote(target)}", "C vs numpy and perform, shapes, gradient, bridges"),
             (f"opkit show {op} --dtypes float64,float64", "the C that opkit generates for one node")]
    column = max(len(command) for command, _ in steps) + 3
    lines = [f"  {command.ljust(column)}# {comment}" for command, comment in steps]
    text = f"\nnext, install the package; then the op {names['class_name']} is opkit.ops.{op}:\n" + "\n".join(lines)
    if cuda:
        text += (f"\nits GPU version {names['class_name']}Gpu runs in the tests on the CPU (device='cuda-interpret'); "
                 f"on a machine with an NVIDIA GPU, pip install 'opkit-sdk[cuda]' and its tests run there too")
    return text
