"""docs/tensor_functions.md is the tensor language's table, rendered; every row names a real function."""

import pathlib
import subprocess
import sys

import opkit.tensor
from opkit.core.tensor.language import rows
from opkit.core.tensor.language.render import markdown

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tensor_functions.md"


def test_the_page_is_the_table_rendered():
    expected = markdown(rows())
    assert PAGE.read_text() == expected, (
        "docs/tensor_functions.md is not the table's page: run "
        "`python -m opkit.core.tensor.language --markdown > docs/tensor_functions.md`")


def test_the_command_the_page_names_prints_it():
    done = subprocess.run([sys.executable, "-m", "opkit.core.tensor.language", "--markdown"], capture_output=True,
                          text=True, check=True)
    assert done.stdout == PAGE.read_text()


def test_every_row_and_alias_is_a_function_of_opkit_tensor():
    table = rows()
    assert len(table) >= 100, f"the table has {len(table)} rows"
    missing = [name for row in table for name in (row.name, *row.aliases) if not hasattr(opkit.tensor, name)]
    assert not missing, f"rows naming no opkit.tensor function: {missing}"
    assert all(row.dtype_rule and row.gradient and row.c for row in table)
