"""pytensor.compile.debug: DebugMode's package (see ``debugmode``)."""
