"""`python -m opkit.cli ...` runs the `opkit` command (useful where the script is not on PATH)."""

from opkit.cli import main

raise SystemExit(main())
