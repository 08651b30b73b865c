"""`python -m opkit ...` runs the `opkit` command."""

from opkit.cli import main

raise SystemExit(main())
