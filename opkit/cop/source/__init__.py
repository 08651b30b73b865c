"""Stage 1, source: an op's C as written: #section files, macros, the COp base class, lint."""
