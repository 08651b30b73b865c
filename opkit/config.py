"""Run-time configuration: `opkit.config`, set from OPKIT_FLAGS / OPKIT_COMPILEDIR."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys

_MODES = ("FAST_RUN", "FAST_COMPILE", "DebugMode")
_FLOATX = ("float64", "float32", "float16")
_SANITIZERS = ("", "address")
_DEVICES = ("cpu", "cuda", "cuda-interpret")  # opkit.gpu.device.DEVICES (not imported: config stays light)


def _default_compiledir():
    import sysconfig

    tag = sysconfig.get_config_var("SOABI") or f"py{sys.version_info[0]}{sys.version_info[1]}"
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: the XDG spec says to use ~/.cache
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "opkit", tag)


def _choice(name, allowed):
    def check(value):
        if value not in allowed:
            raise ValueError(f"opkit flag {name}={value!r} is not one of {', '.join(map(repr, allowed))}")
        return value

    return check


# The largest values of the numeric flags: beyond them a wait or a size stops meaning anything, and
# the C and OS interfaces they reach overflow (poll()'s milliseconds, the C int of the thread limit).
MAX_SECONDS = 1_000_000  # about 11.6 days
MAX_BYTES = 2**63 - 1
MAX_THREADS = 65536


def _number(name, kind, most, zero=True):
    """Check a numeric flag: a finite `kind` from 0 (above 0 without `zero`) to `most`; never a bool, NaN or inf."""
    what = "number of seconds" if kind is float else "whole number of bytes"
    bounds = f"from 0 to {most}" if zero else f"above 0 and at most {most}"

    def check(value):
        try:
            if isinstance(value, bool):
                raise TypeError(value)
            number = kind(value)
            if kind is int and isinstance(value, float) and number != value:
                raise ValueError(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"opkit flag {name}={value!r} must be a {what}") from None
        if not (0 <= number if zero else 0 < number) or not number <= most:  # False for NaN too
            raise ValueError(f"opkit flag {name}={value!r} must be a finite {what} {bounds}")
        return number

    return check


def _positive(name, most):
    def check(value):
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError):
            number = 0
        if number < 1 or number > most or isinstance(value, bool) or (isinstance(value, float) and number != value):
            raise ValueError(f"opkit flag {name}={value!r} must be a whole number from 1 to {most}")
        return number

    return check


def _directory(name):
    """Check a directory flag: an absolute path once `~` is expanded (never empty, never the working directory)."""
    def check(value):
        path = os.path.expanduser(str(value).strip()) if value is not None else ""
        if not path or not os.path.isabs(path):
            raise ValueError(f"{name}={value!r} must be an absolute directory path (e.g. ~/.cache/opkit); "
                             f"{'an empty value' if not path else 'a relative path'} would put compiled modules "
                             "in the working directory")
        return path

    return check


def _march(value):
    text = str(value).strip()
    if any(c.isspace() for c in text) or text.startswith("-"):
        raise ValueError(f"opkit flag march={value!r} must be one -march= value, e.g. native or x86-64-v2"
                         " (empty: the compiler's default target)")
    return text


_warned_omp_num_threads = False


def usable_cores() -> int:
    """Return the number of cores this process may run on (its affinity, e.g. under taskset)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _default_threads():
    """Return OMP_NUM_THREADS (its first level) if set, else the cores this process may run on."""
    text = os.environ.get("OMP_NUM_THREADS", "")
    first = text.split(",")[0].strip()
    if first.isascii() and first.isdigit() and len(first) <= 6 and 1 <= int(first) <= MAX_THREADS:
        return int(first)
    cores = usable_cores()
    global _warned_omp_num_threads
    if text.strip() and not _warned_omp_num_threads:
        _warned_omp_num_threads = True
        # Not opkit's variable: `import opkit` must not fail on it, so it says what it does instead.
        import warnings

        warnings.warn(f"OMP_NUM_THREADS={text!r} is not a thread count from 1 to {MAX_THREADS}: opkit runs large "
                      f"loops on up to {cores} threads (the cores this process may run on); set "
                      "OPKIT_FLAGS=threads=N to choose", RuntimeWarning, stacklevel=2)
    return cores


def _boolean(name):
    def check(value):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"opkit flag {name}={value!r} must be true or false")

    return check


class _Detected:
    """A flag's default that is found on first read (never at `import opkit`), by `find()`.

    config is below every other module of opkit and imports none of them: the layer that knows how
    to find the value installs `find` (`install_finder`; the opkit package, which Python imports before
    this module, installs the BLAS's, found by opkit.cop.blas).
    """

    def __init__(self, what):
        self.what, self.find = what, None

    def value(self, name):
        if self.find is None:
            raise RuntimeError(f"opkit flag {name}: {self.what} is found on first use by a finder the opkit "
                               f"package installs, and none is installed: set {name}")
        return self.find()

    def __repr__(self):
        return f"<{self.what}, found on first use>"


def install_finder(name: str, find) -> None:
    """Install `find()`, which finds the default of the flag `name` on its first read (see _Detected)."""
    _FLAGS[name][0].find = find


def cflag_words(text: str) -> list[str]:
    """Return the words of compiler flags such as config.cflags (shell quoting allowed): [] for none, without
    importing shlex (most processes set none)."""
    if not text:
        return []
    import shlex

    return shlex.split(text)


def split_ldflags(text: str, flag: str = "blas__ldflags") -> list[str]:
    """Return the words of link flags (shell quoting allowed), or raise ValueError naming the bad word.

    Words are -lNAME, -LDIR, -Wl,..., -f..., -m..., -pthread, -DNAME, -IDIR and
    `-framework NAME` (macOS).
    """
    import re
    import shlex

    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"opkit flag {flag}={text!r} must be link flags: {exc}") from None
    for i, word in enumerate(words):
        if re.match(r"-(?:[lLID].+|Wl,.+|[fm][a-z]\S*|pthread)\Z", word, re.S) or word == "-framework" or \
                (i and words[i - 1] == "-framework"):
            continue
        raise ValueError(f"opkit flag {flag}={text!r} must be link flags such as -lopenblas or "
                         f"'-L/dir -lblas' ({word!r} is not one); empty: no BLAS")
    return words


def _blas_ldflags(value):
    text = str(value).strip()
    split_ldflags(text, "blas__ldflags")  # checks the words only: no compiler runs here
    return text


# name -> (default or factory, validator, help)
_FLAGS = {
    "floatX": ("float64", _choice("floatX", _FLOATX), "dtype of ot.matrix() & co. without a dtype"),
    "mode": ("FAST_RUN", _choice("mode", _MODES), "default compilation mode"),
    "device": ("cpu", _choice("device", _DEVICES),
               "where ops that have a GPU version run: cpu, cuda (CuPy arrays on the GPU), or cuda-interpret "
               "(the same kernels run on the CPU by opkit's interpreter, values numpy arrays)"),
    "compiledir": (_default_compiledir, _directory("opkit flag compiledir"), "where compiled modules are cached"),
    "cxx": ("", str, "C++ compiler command (empty: g++, then clang++, then c++)"),
    "cflags": ("", str, "extra compiler flags, space separated"),
    "sanitize": ("", _choice("sanitize", _SANITIZERS), "build modules with a sanitizer (address)"),
    "compile_lock_timeout": (600.0, _number("compile_lock_timeout", float, MAX_SECONDS),
                             "seconds to wait for another process compiling the same module"),
    "compile_timeout": (600.0, _number("compile_timeout", float, MAX_SECONDS, zero=False),
                        "seconds one compiler or linker command may run before it is stopped"),
    "cache_max_bytes": (2 * 1024**3, _number("cache_max_bytes", int, MAX_BYTES),
                        "size cap of the compile cache; least recently used entries are evicted"),
    "openmp": (lambda: usable_cores() > 1, _boolean("openmp"),
               "compile modules with -fopenmp when the compiler supports it (threads, OpenMPOp ops)"),
    "threads": (_default_threads, _positive("threads", MAX_THREADS),
                "threads for large loops (default: OMP_NUM_THREADS, else every core); read at run time"),
    "march": ("native", _march, "-march= of compiled modules: native (this host's CPU), or a baseline "
                                "such as x86-64-v2 for modules meant to ship; empty: the compiler's default"),
    "incremental": (True, _boolean("incremental"),
                    "build a big graph's module from one cached object per node, so a graph that differs "
                    "by a few nodes compiles only those"),
    "python_fallback": (False, _boolean("python_fallback"),
                        "run perform() when no C++ compiler is found, instead of raising"),
    "on_shape_error": ("warn", _choice("on_shape_error", ("warn", "raise")),
                       "an infer_shape that raises (other than NotImplementedError): warn and run the op for its "
                       "output shapes (warn, as Theano), or raise (raise: for op authors' tests)"),
    "profile": (False, _boolean("profile"), "time every node of compiled functions (f.profile.summary())"),
    "verbose": (False, _boolean("verbose"), "log compiles (and waits for another process's) to stderr"),
    "cmodule__debug": (False, _boolean("cmodule__debug"),
                       "define the C macro DEBUG in every compiled module, for ops' #ifdef DEBUG code (PyTensor's "
                       "cmodule__debug, Theano's cmodule.debug; also config.cmodule.debug): part of the module's key"),
    "blas__ldflags": (_Detected("the BLAS detected"), _blas_ldflags,
                      "link flags of the BLAS for ops that call it (also config.blas.ldflags), e.g. -lopenblas; "
                      "empty: no BLAS (default: detected on first use, docs/blas.md)"),
}


class Config:
    """opkit's flags as attributes; unknown names are rejected with the valid ones listed."""

    # The flags, for type checkers (values live in _values; see _FLAGS for what each means).
    floatX: str
    mode: str
    device: str
    compiledir: str
    cxx: str
    cflags: str
    sanitize: str
    compile_lock_timeout: float
    compile_timeout: float
    cache_max_bytes: int
    incremental: bool
    python_fallback: bool
    on_shape_error: str
    profile: bool
    verbose: bool
    openmp: bool
    threads: int
    march: str
    cmodule__debug: bool
    blas__ldflags: str

    def __init__(self, environ=None):
        environ = os.environ if environ is None else environ
        object.__setattr__(self, "_error", None)
        values = {}
        for name, (default, _, _) in _FLAGS.items():
            values[name] = default() if callable(default) else default
        object.__setattr__(self, "_values", values)
        for name, value in parse_flags(environ.get("OPKIT_FLAGS", "")).items():
            setattr(self, name, value)
        if "OPKIT_COMPILEDIR" in environ:  # set but empty (an unset shell variable) is an error, not the cwd
            self._set("compiledir", _directory("OPKIT_COMPILEDIR")(environ["OPKIT_COMPILEDIR"]))

    def __getattr__(self, name):
        error = object.__getattribute__(self, "_error")
        if error is not None:
            raise ValueError(error)
        values = object.__getattribute__(self, "_values")
        if name in values:
            value = values[name]
            if isinstance(value, _Detected):
                value = values[name] = value.value(name)
            return value
        if any(flag.startswith(name + "__") for flag in values):
            return _Section(self, name)
        raise AttributeError(_unknown_message(name))

    def __setattr__(self, name, value):
        if name not in _FLAGS:
            raise AttributeError(_unknown_message(name))
        self._set(name, _FLAGS[name][1](value))

    def _set(self, name, value):
        self._values[name] = value
        if name == "threads" and self is globals().get("config"):  # only the process's config reaches modules
            _publish_threads(value)

    def __dir__(self):
        sections = {flag.split("__", 1)[0] for flag in _FLAGS if "__" in flag}  # config.blas
        return sorted(_FLAGS) + sorted(sections) + ["change_flags"]

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"opkit.config({body})"

    @contextlib.contextmanager
    def change_flags(self, **changes):
        """Set flags for the duration of a `with` block (or a decorated function)."""
        old = {}
        try:
            for name, value in changes.items():
                name = _flag_name(name)  # Theano's change_flags(**{"cmodule.debug": True})
                kept = self._values.get(name)  # a default not found yet stays so: no BLAS probe here
                old[name] = kept if isinstance(kept, _Detected) else getattr(self, name)
                setattr(self, name, value)
            yield self
        finally:
            for name, value in old.items():
                self._set(name, value)


class _Section:
    """`config.blas.ldflags`: Theano's spelling of the flag `blas__ldflags`, to read and to set."""

    def __init__(self, config, prefix):
        object.__setattr__(self, "_config", config)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name):
        return getattr(self._config, f"{self._prefix}__{name}")

    def __setattr__(self, name, value):
        setattr(self._config, f"{self._prefix}__{name}", value)

    def __dir__(self):
        return [flag.split("__", 1)[1] for flag in _FLAGS if flag.startswith(self._prefix + "__")]

    def __repr__(self):
        return f"opkit.config.{self._prefix}"


def _flag_name(name):
    """Return the flag Theano's dotted spelling names ("blas.ldflags" -> "blas__ldflags"); other names as given."""
    dunder = name.replace(".", "__")
    return dunder if "." in name and dunder in _FLAGS else name


def _unknown_message(name):
    import difflib  # compiles a regex on import: only for this message

    close = difflib.get_close_matches(name, list(_FLAGS), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"unknown opkit flag {name!r}.{hint} Valid flags: {', '.join(sorted(_FLAGS))}"


def parse_flags(text):
    """Parse 'a=1,b=2' (OPKIT_FLAGS) into a dict, rejecting unknown names."""
    flags = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        name = _flag_name(name.strip())  # Theano's THEANO_FLAGS spelling too: cmodule.debug=True
        if not sep:
            raise ValueError(f"OPKIT_FLAGS entry {item!r} is not name=value")
        if name not in _FLAGS:
            raise ValueError(f"OPKIT_FLAGS: {_unknown_message(name)}")
        flags[name] = value.strip()
    return flags


def flag_help():
    """Return (name, default, help) for every flag, for `opkit doctor` and docs."""
    return [(n, d() if callable(d) else d, h) for n, (d, _, h) in _FLAGS.items()]


def _load_config() -> Config:
    """Return the config from the environment; a malformed OPKIT_FLAGS is kept, and raised on first use.

    `import opkit` never fails on it, so every `opkit` command can report it as one line.
    """
    try:
        return Config()
    except ValueError as exc:
        broken = Config(environ={})
        object.__setattr__(broken, "_error", str(exc))
        return broken


def config_error() -> str | None:
    """Return why OPKIT_FLAGS could not be read, or None."""
    return object.__getattribute__(config, "_error")


# What compiled modules read at run time (see the module template's OPKIT_THREADS_FOR): [0] the
# thread limit, config.threads, so one module serves every setting and change_flags(threads=...)
# reaches functions compiled before; [1] set by a module once it has run a team of threads;
# [2] the fewest elements worth a thread of their own (about 30 us of a simple loop: a team of
# OpenMP threads costs a few us to start). Tests lower [2] to run small arrays on threads.
THREAD_GRAIN = 32768
_threads_cell = (ctypes.c_int * 3)(1, 0, THREAD_GRAIN)  # numpy imports ctypes; array would cost a fresh process
_forked_after_team = False


def threads_cell_address() -> int:
    """Return the address of the three C ints compiled modules read their thread limit from."""
    return ctypes.addressof(_threads_cell)


def _publish_threads(value: int) -> None:
    _threads_cell[0] = 1 if _forked_after_team else min(value, MAX_THREADS)


def _after_fork_in_child() -> None:
    # GNU OpenMP's thread pool does not survive fork: a child that starts a team after its parent
    # ran one hangs. Such a child runs every loop on one thread.
    global _forked_after_team
    if _threads_cell[1]:
        _forked_after_team = True
        _threads_cell[0] = 1


config = _load_config()
_publish_threads(object.__getattribute__(config, "_values")["threads"])
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
