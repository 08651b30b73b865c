"""pytensor.link.c: the C linkers (``basic``) and compiler probes (``cmodule``) at PyTensor's paths."""
