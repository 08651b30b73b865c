"""Stage 1, source: an op's C as written: #section files, macros, the COp base class, lint."""

# An op's code ends a chunk that moved the compiler into its own file with `#line` with this line; left
# alone it is an ignored pragma, rendered (opkit.cop.generate.codegen) it points back at the generated
# module. Here, not in sections.py: a warm process generates code without importing the section parser.
RESTORE_LINE_PRAGMA = "#pragma opkit_restore_line"
