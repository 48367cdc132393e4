"""The ``ctxw`` command line: one click group, one module per verb family, thin over the library."""
