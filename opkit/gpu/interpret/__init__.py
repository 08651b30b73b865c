"""opkit's CUDA interpreter (device="cuda-interpret"): CUDA kernels compiled by g++ and run on the CPU.

The interpreter's contract is this unit: the C++ headers that give kernels CUDA's built-ins on the CPU
(opkit/templates/gpu/cuda_interpret*.h), the one table of those built-ins and of what it refuses
(`builtins`), the refusals checked before g++ sees a kernel (`refusals`), and how a host module is compiled
for it: with INTERPRET_MACRO defined (opkit_gpu.h then includes cuda_interpret.h, and GPU values are numpy
arrays), the compile argument the cuda-interpret target (opkit.gpu.device) gives every module holding GPU
values, so the interpreter's module is never the GPU's. docs/gpu_interpreter.md says what it runs.
"""

INTERPRET_MACRO = "OPKIT_CUDA_INTERPRET"
