/* Pre-included in every program opkit compiles with NVRTC (opkit.cop.kernels): the names a `#section kernels`
 * sees besides CUDA's own. NVRTC has no C library and no numpy headers, so the types DTYPE_INPUT_i and
 * DTYPE_OUTPUT_i expand to, and the NPY_* numbers TYPENUM_INPUT_i expands to, are declared here exactly as
 * numpy declares them on a 64-bit Linux host (the same types the host module and the cuda-interpret mode see).
 * float16 is numpy's npy_half: 16 bits of storage (convert with __half_as_ushort etc. where cuda_fp16.h is at
 * hand); complex64/complex128 are numpy's C++ structs of two floats/doubles (_Val[0] real, _Val[1] imaginary).
 * Part of every kernel module's identity (its bytes). */
#ifndef OPKIT_NVRTC_H
#define OPKIT_NVRTC_H

#define OPKIT_NVRTC 1

typedef unsigned char npy_bool;
typedef signed char npy_int8;
typedef unsigned char npy_uint8;
typedef short npy_int16;
typedef unsigned short npy_uint16;
typedef int npy_int32;
typedef unsigned int npy_uint32;
typedef long npy_int64;
typedef unsigned long npy_uint64;
typedef long npy_intp;
typedef unsigned long npy_uintp;
typedef npy_uint16 npy_half;
typedef npy_half npy_float16;
typedef float npy_float32;
typedef double npy_float64;
typedef struct { float _Val[2]; } npy_cfloat;
typedef struct { double _Val[2]; } npy_cdouble;
typedef npy_cfloat npy_complex64;
typedef npy_cdouble npy_complex128;

enum {
    NPY_BOOL = 0, NPY_BYTE = 1, NPY_UBYTE = 2, NPY_SHORT = 3, NPY_USHORT = 4, NPY_INT = 5, NPY_UINT = 6,
    NPY_LONG = 7, NPY_ULONG = 8, NPY_LONGLONG = 9, NPY_ULONGLONG = 10, NPY_FLOAT = 11, NPY_DOUBLE = 12,
    NPY_LONGDOUBLE = 13, NPY_CFLOAT = 14, NPY_CDOUBLE = 15, NPY_CLONGDOUBLE = 16, NPY_HALF = 23,
    NPY_INT8 = NPY_BYTE, NPY_UINT8 = NPY_UBYTE, NPY_INT16 = NPY_SHORT, NPY_UINT16 = NPY_USHORT,
    NPY_INT32 = NPY_INT, NPY_UINT32 = NPY_UINT, NPY_INT64 = NPY_LONG, NPY_UINT64 = NPY_ULONG,
    NPY_FLOAT16 = NPY_HALF, NPY_FLOAT32 = NPY_FLOAT, NPY_FLOAT64 = NPY_DOUBLE,
    NPY_COMPLEX64 = NPY_CFLOAT, NPY_COMPLEX128 = NPY_CDOUBLE
};

#endif
