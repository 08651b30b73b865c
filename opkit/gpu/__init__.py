"""opkit.gpu: GPU values (CuPy arrays, or numpy arrays in the CPU interpreter), transfers and placement.

Importing this package never imports CuPy: the runtime loads it when a GPU function first runs.
"""

from opkit.gpu.placement import register_gpu_version

__all__ = ["register_gpu_version"]
