"""pytensor.link.c.op: ``COp`` (an op with ``c_code`` methods: opkit's Op) and ``ExternalCOp`` (C read from
files: opkit's COp), and ``OpenMPOp``."""

from opkit import COp as ExternalCOp
from opkit import OpenMPOp
from opkit.core.op import Op as COp

__all__ = ["COp", "ExternalCOp", "OpenMPOp"]
