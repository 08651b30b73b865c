// GENERATED from opkit/gpu/interpret/builtins.py (python -m opkit.gpu.interpret.builtins): do not edit.
// The CUDA built-ins opkit's interpreter gives kernels, from the table opkit.gpu.interpret.refusals
// takes its allow-list from. cuda_interpret.h includes this last: each macro must be defined, and each
// function (every overload) and variable declared, or every interpreted module fails to compile.
#ifndef OPKIT_CUDA_INTERPRET_TABLE_H
#define OPKIT_CUDA_INTERPRET_TABLE_H
namespace opkit_interp {
namespace table {
// qualifiers
#ifndef __global__
#error "cuda_interpret.h does not define __global__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __device__
#error "cuda_interpret.h does not define __device__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __host__
#error "cuda_interpret.h does not define __host__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __constant__
#error "cuda_interpret.h does not define __constant__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __forceinline__
#error "cuda_interpret.h does not define __forceinline__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __noinline__
#error "cuda_interpret.h does not define __noinline__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __launch_bounds__
#error "cuda_interpret.h does not define __launch_bounds__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __grid_constant__
#error "cuda_interpret.h does not define __grid_constant__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __align__
#error "cuda_interpret.h does not define __align__ (opkit.gpu.interpret.builtins)"
#endif
#ifndef __shared__
#error "cuda_interpret.h does not define __shared__ (opkit.gpu.interpret.builtins)"
#endif
// thread and block indices
#ifndef threadIdx
#error "cuda_interpret.h does not define threadIdx (opkit.gpu.interpret.builtins)"
#endif
#ifndef blockIdx
#error "cuda_interpret.h does not define blockIdx (opkit.gpu.interpret.builtins)"
#endif
#ifndef blockDim
#error "cuda_interpret.h does not define blockDim (opkit.gpu.interpret.builtins)"
#endif
#ifndef gridDim
#error "cuda_interpret.h does not define gridDim (opkit.gpu.interpret.builtins)"
#endif
// warp size
using ::warpSize;
// block barriers
#ifndef __syncthreads
#error "cuda_interpret.h does not define __syncthreads (opkit.gpu.interpret.builtins)"
#endif
#ifndef __syncthreads_count
#error "cuda_interpret.h does not define __syncthreads_count (opkit.gpu.interpret.builtins)"
#endif
#ifndef __syncthreads_and
#error "cuda_interpret.h does not define __syncthreads_and (opkit.gpu.interpret.builtins)"
#endif
#ifndef __syncthreads_or
#error "cuda_interpret.h does not define __syncthreads_or (opkit.gpu.interpret.builtins)"
#endif
// assertions and traps
#ifndef assert
#error "cuda_interpret.h does not define assert (opkit.gpu.interpret.builtins)"
#endif
#ifndef __trap
#error "cuda_interpret.h does not define __trap (opkit.gpu.interpret.builtins)"
#endif
// warp collectives
using ::__syncwarp;
using ::__shfl_sync;
using ::__shfl_up_sync;
using ::__shfl_down_sync;
using ::__shfl_xor_sync;
using ::__ballot_sync;
using ::__all_sync;
using ::__any_sync;
using ::__match_any_sync;
using ::__match_all_sync;
using ::__reduce_add_sync;
using ::__reduce_min_sync;
using ::__reduce_max_sync;
using ::__reduce_and_sync;
using ::__reduce_or_sync;
using ::__reduce_xor_sync;
// memory fences, cached loads and stores
using ::__threadfence;
using ::__threadfence_block;
using ::__threadfence_system;
using ::__ldg;
using ::__ldca;
using ::__ldcg;
using ::__ldcs;
using ::__ldlu;
using ::__ldcv;
using ::__stwb;
using ::__stcg;
using ::__stcs;
using ::__stwt;
// atomics
using ::atomicAdd;
using ::atomicSub;
using ::atomicExch;
using ::atomicMin;
using ::atomicMax;
using ::atomicInc;
using ::atomicDec;
using ::atomicCAS;
using ::atomicAnd;
using ::atomicOr;
using ::atomicXor;
using ::atomicAdd_block;
using ::atomicAdd_system;
using ::atomicSub_block;
using ::atomicSub_system;
using ::atomicExch_block;
using ::atomicExch_system;
using ::atomicMin_block;
using ::atomicMin_system;
using ::atomicMax_block;
using ::atomicMax_system;
using ::atomicInc_block;
using ::atomicInc_system;
using ::atomicDec_block;
using ::atomicDec_system;
using ::atomicCAS_block;
using ::atomicCAS_system;
using ::atomicAnd_block;
using ::atomicAnd_system;
using ::atomicOr_block;
using ::atomicOr_system;
using ::atomicXor_block;
using ::atomicXor_system;
// min and max
using ::min;
using ::max;
using ::umin;
using ::umax;
using ::llmin;
using ::llmax;
using ::ullmin;
using ::ullmax;
// integer intrinsics
using ::__popc;
using ::__popcll;
using ::__clz;
using ::__clzll;
using ::__ffs;
using ::__ffsll;
using ::__brev;
using ::__brevll;
using ::__mulhi;
using ::__umulhi;
using ::__mul64hi;
using ::__umul64hi;
using ::__mul24;
using ::__umul24;
using ::__funnelshift_l;
using ::__funnelshift_lc;
using ::__funnelshift_r;
using ::__funnelshift_rc;
using ::__byte_perm;
using ::__sad;
using ::__usad;
// conversions
using ::__float2int_rn;
using ::__float2int_rz;
using ::__float2int_rd;
using ::__float2int_ru;
using ::__float2uint_rn;
using ::__float2uint_rz;
using ::__float2uint_rd;
using ::__float2uint_ru;
using ::__float2ll_rn;
using ::__float2ll_rz;
using ::__float2ll_rd;
using ::__float2ll_ru;
using ::__float2ull_rn;
using ::__float2ull_rz;
using ::__float2ull_rd;
using ::__float2ull_ru;
using ::__double2int_rn;
using ::__double2int_rz;
using ::__double2int_rd;
using ::__double2int_ru;
using ::__double2uint_rn;
using ::__double2uint_rz;
using ::__double2uint_rd;
using ::__double2uint_ru;
using ::__double2ll_rn;
using ::__double2ll_rz;
using ::__double2ll_rd;
using ::__double2ll_ru;
using ::__double2ull_rn;
using ::__double2ull_rz;
using ::__double2ull_rd;
using ::__double2ull_ru;
using ::__int2float_rn;
using ::__uint2float_rn;
using ::__ll2float_rn;
using ::__ull2float_rn;
using ::__int2double_rn;
using ::__uint2double_rn;
using ::__ll2double_rn;
using ::__ull2double_rn;
using ::__double2float_rn;
// reinterpretations
using ::__float_as_int;
using ::__float_as_uint;
using ::__int_as_float;
using ::__uint_as_float;
using ::__double_as_longlong;
using ::__longlong_as_double;
// exactly rounded arithmetic
using ::__fadd_rn;
using ::__fsub_rn;
using ::__fmul_rn;
using ::__fdiv_rn;
using ::__frcp_rn;
using ::__fsqrt_rn;
using ::__fmaf_rn;
using ::__dadd_rn;
using ::__dsub_rn;
using ::__dmul_rn;
using ::__ddiv_rn;
using ::__drcp_rn;
using ::__dsqrt_rn;
using ::__fma_rn;
using ::__saturatef;
using ::saturate;
// functions <cmath> lacks
using ::rsqrtf;
using ::rsqrt;
using ::rcbrtf;
using ::rcbrt;
using ::sinpif;
using ::sinpi;
using ::cospif;
using ::cospi;
using ::normcdff;
using ::normcdf;
using ::sincospif;
using ::sincospi;
}  // namespace table
}  // namespace opkit_interp
#endif  // OPKIT_CUDA_INTERPRET_TABLE_H
