"""pytensor.misc: ``frozendict`` (Theano's and PyTensor's hashable mapping)."""
