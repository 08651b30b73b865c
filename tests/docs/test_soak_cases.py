"""soak_cases.CASES: every entry names a test that exists and cases it has, and marks exactly the others soak."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import soak_cases

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def collected():
    """{test under tests/: {case id or None: marked soak}} for the files CASES names, as pytest collects them."""
    files = sorted({name.partition("::")[0] for name in soak_cases.CASES})
    records = soak_cases.COLLECTED
    if not set(files) <= {soak_cases.split(nodeid)[0].partition("::")[0] for nodeid, _ in records}:
        records = collect_in_a_child_process(files)
    found = {}
    for nodeid, marked_soak in records:
        name, case = soak_cases.split(nodeid)
        found.setdefault(name, {})[case] = marked_soak
    return found


def collect_in_a_child_process(files):
    """[(node id, marked soak)] of the tests of `files` (under tests/), as a collection of them alone finds them."""
    # One collection in a child process; it prints each test's node id and whether it is marked soak.
    script = (
        "import json, sys, pytest\n"
        "class Record:\n"
        "    def pytest_collection_finish(self, session):\n"
        "        self.items = [(i.nodeid, i.get_closest_marker('soak') is not None) for i in session.items]\n"
        "record = Record()\n"
        "code = pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider', '-m', 'soak or not soak',"
        " *sys.argv[1:]], plugins=[record])\n"
        "print('RECORD' + json.dumps(record.items))\n"
        "sys.exit(code)\n")
    result = subprocess.run([sys.executable, "-c", script, *files], cwd=TESTS, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads(result.stdout.rpartition("RECORD")[2])


@pytest.mark.parametrize("name", sorted(soak_cases.CASES))
def test_each_entry_names_a_test_and_cases_it_has(collected, name):
    assert name in collected, f"soak_cases.CASES names {name}, which pytest does not collect: rename or drop it"
    cases = collected[name]
    for pattern in soak_cases.CASES[name]:
        if pattern != soak_cases.FAST_COMPILE:
            assert any(soak_cases.matches(case, (pattern,)) for case in cases), (
                f"soak_cases.CASES keeps {pattern!r} of {name}, which has no such case: {sorted(map(str, cases))}")


@pytest.mark.parametrize("name", sorted(soak_cases.CASES))
def test_the_cases_left_out_are_soak_and_the_kept_ones_run_by_default(collected, name):
    kept = soak_cases.CASES[name]
    cases = collected[name]
    for case, marked_soak in cases.items():
        if soak_cases.matches(case, kept):
            continue  # kept: default unless its own file marks it soak
        assert marked_soak, f"{name}[{case}] is left out by soak_cases.CASES but the README's run collects it"
    if kept:
        assert not all(cases.values()), f"soak_cases.CASES keeps no case of {name} in the README's run"


def collect_ids(*args):
    """The node ids `pytest --collect-only -q ARGS` prints, run from tests/ in a child process."""
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-p", "no:randomly", *args], cwd=TESTS, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {line for line in result.stdout.splitlines() if "::" in line}


def test_the_soak_parts_split_the_soak_cases_and_leave_the_others_alone():
    """.ci/run runs one part of the soak tests per commit: every soak case is in exactly one part of N (N = 2 here:
    each collection is a pytest process)."""
    file = "tensor/test_dtypes.py"
    soak = collect_ids("-m", "soak", file)
    default = collect_ids(file)
    parts = [collect_ids("-m", "soak", f"--soak-part={part}/2", file) for part in (1, 2)]
    assert len(soak) > 3 and all(parts), [len(part) for part in parts]
    assert set().union(*parts) == soak and sum(map(len, parts)) == len(soak)
    assert parts[1] == {nodeid for nodeid in soak if soak_cases.part_of(nodeid, 2) == 2}
    # The README's run (not soak) is the same with or without a part.
    assert collect_ids("--soak-part=2/2", file) == default


@pytest.mark.parametrize("value", ["3/2", "a/b"])
def test_a_soak_part_that_is_not_k_of_n_is_one_usage_error(value):
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             f"--soak-part={value}", "docs/test_soak_cases.py"], cwd=TESTS, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"argument --soak-part: {value!r} is not K/N with 1 <= K <= N (for example 2/5)" in result.stderr
