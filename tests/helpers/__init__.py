"""Ops, checkers and child processes shared by test files (of one folder or several).

tests/ is on sys.path (pytest puts the folder of the root conftest.py there; tests/ has no __init__.py), so a
test file imports `from helpers.numeric import check_close`. Test files never import each other; fixtures
shared by several folders live in tests/conftest.py.
"""
