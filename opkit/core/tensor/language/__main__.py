"""`python -m opkit.core.tensor.language --markdown`: print the reference page of the tensor functions."""

import argparse
from opkit.core.tensor.language import rows
from opkit.core.tensor.language.render import markdown


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m opkit.core.tensor.language",
                                     description="Print the tensor language's table.")
    parser.add_argument("--markdown", action="store_true", help="print docs/tensor_functions.md's text (the default)")
    parser.parse_args(argv)
    print(markdown(rows()), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
