"""pytensor.link: linkers and containers, opkit's, at PyTensor's paths."""
