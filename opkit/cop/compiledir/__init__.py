"""The compiledir: every name under it, private files, texts kept there."""
