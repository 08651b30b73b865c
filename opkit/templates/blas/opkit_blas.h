/* opkit_blas.h: prototypes of the BLAS for C ops (opkit.cop.blas).

   Fortran BLAS (dgemm_ & co.) and CBLAS (cblas_dgemm & co.), LP64: every integer
   is a 32-bit int, as the reference BLAS, OpenBLAS's default build, MKL's LP64
   interface and the scipy-openblas32 wheel take them. Arguments of the Fortran
   routines are pointers; character arguments are one char ('N', 'T', 'U'...).
   Complex arrays and scalars are passed as void pointers (interleaved real and
   imaginary parts, like numpy's complex64/complex128). Complex dot products that
   return a value are left out: their calling convention differs between BLAS
   builds; use cblas_cdotu_sub & co.

   Link with the flags of opkit.config.blas__ldflags (opkit.cop.blas.ldflags()).
   Define OPKIT_BLAS_SCIPY_NAMES before this header when the BLAS is the
   scipy-openblas32 wheel, whose symbols are prefixed with scipy_: every name
   below is then mapped onto the prefixed symbol (opkit.cop.blas does it for you:
   blas_header_text() and ldflags(flags=True)). Define OPKIT_BLAS_NO_CBLAS to leave
   the CBLAS part out; the CBLAS part is also left out after another cblas.h.
   With OPKIT_BLAS_NONE (no BLAS: config.blas__ldflags is empty) the header still
   compiles, so an op may test the flag and run other code, but a call to any
   routine is a compile error that says how to get a BLAS.
   tests/cop/test_blas.py checks that every name has its scipy_ mapping and links each one. */
#ifndef OPKIT_BLAS_H
#define OPKIT_BLAS_H

#include <stddef.h>

#ifdef OPKIT_BLAS_NONE
#define OPKIT_BLAS_API __attribute__((error("no BLAS: opkit.config.blas__ldflags is empty; pip install " \
    "'opkit-sdk[blas]' (or install OpenBLAS) and leave blas__ldflags unset, or set OPKIT_FLAGS=blas__ldflags=" \
    "'-L/dir -lopenblas' (docs/blas.md)")))
#else
#define OPKIT_BLAS_API
#endif

#ifdef OPKIT_BLAS_SCIPY_NAMES
#define srotg_          scipy_srotg_
#define srotmg_         scipy_srotmg_
#define srot_           scipy_srot_
#define srotm_          scipy_srotm_
#define sswap_          scipy_sswap_
#define sscal_          scipy_sscal_
#define scopy_          scipy_scopy_
#define saxpy_          scipy_saxpy_
#define sgemv_          scipy_sgemv_
#define sgbmv_          scipy_sgbmv_
#define strmv_          scipy_strmv_
#define stbmv_          scipy_stbmv_
#define stpmv_          scipy_stpmv_
#define strsv_          scipy_strsv_
#define stbsv_          scipy_stbsv_
#define stpsv_          scipy_stpsv_
#define ssymv_          scipy_ssymv_
#define ssbmv_          scipy_ssbmv_
#define sspmv_          scipy_sspmv_
#define sger_           scipy_sger_
#define ssyr_           scipy_ssyr_
#define sspr_           scipy_sspr_
#define ssyr2_          scipy_ssyr2_
#define sspr2_          scipy_sspr2_
#define sgemm_          scipy_sgemm_
#define ssymm_          scipy_ssymm_
#define ssyrk_          scipy_ssyrk_
#define ssyr2k_         scipy_ssyr2k_
#define strmm_          scipy_strmm_
#define strsm_          scipy_strsm_
#define sdot_           scipy_sdot_
#define snrm2_          scipy_snrm2_
#define sasum_          scipy_sasum_
#define isamax_         scipy_isamax_
#define drotg_          scipy_drotg_
#define drotmg_         scipy_drotmg_
#define drot_           scipy_drot_
#define drotm_          scipy_drotm_
#define dswap_          scipy_dswap_
#define dscal_          scipy_dscal_
#define dcopy_          scipy_dcopy_
#define daxpy_          scipy_daxpy_
#define dgemv_          scipy_dgemv_
#define dgbmv_          scipy_dgbmv_
#define dtrmv_          scipy_dtrmv_
#define dtbmv_          scipy_dtbmv_
#define dtpmv_          scipy_dtpmv_
#define dtrsv_          scipy_dtrsv_
#define dtbsv_          scipy_dtbsv_
#define dtpsv_          scipy_dtpsv_
#define dsymv_          scipy_dsymv_
#define dsbmv_          scipy_dsbmv_
#define dspmv_          scipy_dspmv_
#define dger_           scipy_dger_
#define dsyr_           scipy_dsyr_
#define dspr_           scipy_dspr_
#define dsyr2_          scipy_dsyr2_
#define dspr2_          scipy_dspr2_
#define dgemm_          scipy_dgemm_
#define dsymm_          scipy_dsymm_
#define dsyrk_          scipy_dsyrk_
#define dsyr2k_         scipy_dsyr2k_
#define dtrmm_          scipy_dtrmm_
#define dtrsm_          scipy_dtrsm_
#define ddot_           scipy_ddot_
#define dnrm2_          scipy_dnrm2_
#define dasum_          scipy_dasum_
#define idamax_         scipy_idamax_
#define sdsdot_         scipy_sdsdot_
#define dsdot_          scipy_dsdot_
#define cswap_          scipy_cswap_
#define cscal_          scipy_cscal_
#define ccopy_          scipy_ccopy_
#define caxpy_          scipy_caxpy_
#define cgemv_          scipy_cgemv_
#define cgbmv_          scipy_cgbmv_
#define ctrmv_          scipy_ctrmv_
#define ctbmv_          scipy_ctbmv_
#define ctpmv_          scipy_ctpmv_
#define ctrsv_          scipy_ctrsv_
#define ctbsv_          scipy_ctbsv_
#define ctpsv_          scipy_ctpsv_
#define chemv_          scipy_chemv_
#define chbmv_          scipy_chbmv_
#define chpmv_          scipy_chpmv_
#define cgeru_          scipy_cgeru_
#define cgerc_          scipy_cgerc_
#define cher2_          scipy_cher2_
#define chpr2_          scipy_chpr2_
#define cgemm_          scipy_cgemm_
#define csymm_          scipy_csymm_
#define csyrk_          scipy_csyrk_
#define csyr2k_         scipy_csyr2k_
#define ctrmm_          scipy_ctrmm_
#define ctrsm_          scipy_ctrsm_
#define chemm_          scipy_chemm_
#define cher2k_         scipy_cher2k_
#define cherk_          scipy_cherk_
#define cher_           scipy_cher_
#define chpr_           scipy_chpr_
#define csscal_         scipy_csscal_
#define scnrm2_         scipy_scnrm2_
#define scasum_         scipy_scasum_
#define icamax_         scipy_icamax_
#define zswap_          scipy_zswap_
#define zscal_          scipy_zscal_
#define zcopy_          scipy_zcopy_
#define zaxpy_          scipy_zaxpy_
#define zgemv_          scipy_zgemv_
#define zgbmv_          scipy_zgbmv_
#define ztrmv_          scipy_ztrmv_
#define ztbmv_          scipy_ztbmv_
#define ztpmv_          scipy_ztpmv_
#define ztrsv_          scipy_ztrsv_
#define ztbsv_          scipy_ztbsv_
#define ztpsv_          scipy_ztpsv_
#define zhemv_          scipy_zhemv_
#define zhbmv_          scipy_zhbmv_
#define zhpmv_          scipy_zhpmv_
#define zgeru_          scipy_zgeru_
#define zgerc_          scipy_zgerc_
#define zher2_          scipy_zher2_
#define zhpr2_          scipy_zhpr2_
#define zgemm_          scipy_zgemm_
#define zsymm_          scipy_zsymm_
#define zsyrk_          scipy_zsyrk_
#define zsyr2k_         scipy_zsyr2k_
#define ztrmm_          scipy_ztrmm_
#define ztrsm_          scipy_ztrsm_
#define zhemm_          scipy_zhemm_
#define zher2k_         scipy_zher2k_
#define zherk_          scipy_zherk_
#define zher_           scipy_zher_
#define zhpr_           scipy_zhpr_
#define zdscal_         scipy_zdscal_
#define dznrm2_         scipy_dznrm2_
#define dzasum_         scipy_dzasum_
#define izamax_         scipy_izamax_
#define cblas_sdot      scipy_cblas_sdot
#define cblas_snrm2     scipy_cblas_snrm2
#define cblas_sasum     scipy_cblas_sasum
#define cblas_isamax    scipy_cblas_isamax
#define cblas_sswap     scipy_cblas_sswap
#define cblas_scopy     scipy_cblas_scopy
#define cblas_saxpy     scipy_cblas_saxpy
#define cblas_sscal     scipy_cblas_sscal
#define cblas_srotg     scipy_cblas_srotg
#define cblas_srot      scipy_cblas_srot
#define cblas_sgemv     scipy_cblas_sgemv
#define cblas_sgbmv     scipy_cblas_sgbmv
#define cblas_strmv     scipy_cblas_strmv
#define cblas_stbmv     scipy_cblas_stbmv
#define cblas_stpmv     scipy_cblas_stpmv
#define cblas_strsv     scipy_cblas_strsv
#define cblas_stbsv     scipy_cblas_stbsv
#define cblas_stpsv     scipy_cblas_stpsv
#define cblas_ssymv     scipy_cblas_ssymv
#define cblas_ssbmv     scipy_cblas_ssbmv
#define cblas_sspmv     scipy_cblas_sspmv
#define cblas_sger      scipy_cblas_sger
#define cblas_ssyr      scipy_cblas_ssyr
#define cblas_sspr      scipy_cblas_sspr
#define cblas_ssyr2     scipy_cblas_ssyr2
#define cblas_sspr2     scipy_cblas_sspr2
#define cblas_sgemm     scipy_cblas_sgemm
#define cblas_ssymm     scipy_cblas_ssymm
#define cblas_ssyrk     scipy_cblas_ssyrk
#define cblas_ssyr2k    scipy_cblas_ssyr2k
#define cblas_strmm     scipy_cblas_strmm
#define cblas_strsm     scipy_cblas_strsm
#define cblas_ddot      scipy_cblas_ddot
#define cblas_dnrm2     scipy_cblas_dnrm2
#define cblas_dasum     scipy_cblas_dasum
#define cblas_idamax    scipy_cblas_idamax
#define cblas_dswap     scipy_cblas_dswap
#define cblas_dcopy     scipy_cblas_dcopy
#define cblas_daxpy     scipy_cblas_daxpy
#define cblas_dscal     scipy_cblas_dscal
#define cblas_drotg     scipy_cblas_drotg
#define cblas_drot      scipy_cblas_drot
#define cblas_dgemv     scipy_cblas_dgemv
#define cblas_dgbmv     scipy_cblas_dgbmv
#define cblas_dtrmv     scipy_cblas_dtrmv
#define cblas_dtbmv     scipy_cblas_dtbmv
#define cblas_dtpmv     scipy_cblas_dtpmv
#define cblas_dtrsv     scipy_cblas_dtrsv
#define cblas_dtbsv     scipy_cblas_dtbsv
#define cblas_dtpsv     scipy_cblas_dtpsv
#define cblas_dsymv     scipy_cblas_dsymv
#define cblas_dsbmv     scipy_cblas_dsbmv
#define cblas_dspmv     scipy_cblas_dspmv
#define cblas_dger      scipy_cblas_dger
#define cblas_dsyr      scipy_cblas_dsyr
#define cblas_dspr      scipy_cblas_dspr
#define cblas_dsyr2     scipy_cblas_dsyr2
#define cblas_dspr2     scipy_cblas_dspr2
#define cblas_dgemm     scipy_cblas_dgemm
#define cblas_dsymm     scipy_cblas_dsymm
#define cblas_dsyrk     scipy_cblas_dsyrk
#define cblas_dsyr2k    scipy_cblas_dsyr2k
#define cblas_dtrmm     scipy_cblas_dtrmm
#define cblas_dtrsm     scipy_cblas_dtrsm
#define cblas_sdsdot    scipy_cblas_sdsdot
#define cblas_dsdot     scipy_cblas_dsdot
#define cblas_cgemv     scipy_cblas_cgemv
#define cblas_cgemm     scipy_cblas_cgemm
#define cblas_csymm     scipy_cblas_csymm
#define cblas_chemm     scipy_cblas_chemm
#define cblas_csyrk     scipy_cblas_csyrk
#define cblas_csyr2k    scipy_cblas_csyr2k
#define cblas_ctrmm     scipy_cblas_ctrmm
#define cblas_ctrsm     scipy_cblas_ctrsm
#define cblas_cherk     scipy_cblas_cherk
#define cblas_cher2k    scipy_cblas_cher2k
#define cblas_caxpy     scipy_cblas_caxpy
#define cblas_cscal     scipy_cblas_cscal
#define cblas_ccopy     scipy_cblas_ccopy
#define cblas_cswap     scipy_cblas_cswap
#define cblas_cdotu_sub scipy_cblas_cdotu_sub
#define cblas_cdotc_sub scipy_cblas_cdotc_sub
#define cblas_icamax    scipy_cblas_icamax
#define cblas_zgemv     scipy_cblas_zgemv
#define cblas_zgemm     scipy_cblas_zgemm
#define cblas_zsymm     scipy_cblas_zsymm
#define cblas_zhemm     scipy_cblas_zhemm
#define cblas_zsyrk     scipy_cblas_zsyrk
#define cblas_zsyr2k    scipy_cblas_zsyr2k
#define cblas_ztrmm     scipy_cblas_ztrmm
#define cblas_ztrsm     scipy_cblas_ztrsm
#define cblas_zherk     scipy_cblas_zherk
#define cblas_zher2k    scipy_cblas_zher2k
#define cblas_zaxpy     scipy_cblas_zaxpy
#define cblas_zscal     scipy_cblas_zscal
#define cblas_zcopy     scipy_cblas_zcopy
#define cblas_zswap     scipy_cblas_zswap
#define cblas_zdotu_sub scipy_cblas_zdotu_sub
#define cblas_zdotc_sub scipy_cblas_zdotc_sub
#define cblas_izamax    scipy_cblas_izamax
#define cblas_scnrm2    scipy_cblas_scnrm2
#define cblas_dznrm2    scipy_cblas_dznrm2
#define cblas_scasum    scipy_cblas_scasum
#define cblas_dzasum    scipy_cblas_dzasum
#define cblas_csscal    scipy_cblas_csscal
#define cblas_zdscal    scipy_cblas_zdscal
#define openblas_set_num_threads scipy_openblas_set_num_threads
#define openblas_get_num_threads scipy_openblas_get_num_threads
#define openblas_get_num_procs   scipy_openblas_get_num_procs
#define goto_set_num_threads     scipy_goto_set_num_threads
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fortran BLAS */
OPKIT_BLAS_API void srotg_(float* a, float* b, float* c, float* s);
OPKIT_BLAS_API void srotmg_(float* d1, float* d2, float* x1, const float* y1, float* param);
OPKIT_BLAS_API void srot_(const int* n, float* x, const int* incx, float* y, const int* incy, const float* c, const float* s);
OPKIT_BLAS_API void srotm_(const int* n, float* x, const int* incx, float* y, const int* incy, const float* param);
OPKIT_BLAS_API void sswap_(const int* n, float* x, const int* incx, float* y, const int* incy);
OPKIT_BLAS_API void sscal_(const int* n, const float* alpha, float* x, const int* incx);
OPKIT_BLAS_API void scopy_(const int* n, const float* x, const int* incx, float* y, const int* incy);
OPKIT_BLAS_API void saxpy_(const int* n, const float* alpha, const float* x, const int* incx, float* y, const int* incy);
OPKIT_BLAS_API void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a, const int* lda, const float* x, const int* incx, const float* beta, float* y, const int* incy);
OPKIT_BLAS_API void sgbmv_(const char* trans, const int* m, const int* n, const int* kl, const int* ku, const float* alpha, const float* a, const int* lda, const float* x, const int* incx, const float* beta, float* y, const int* incy);
OPKIT_BLAS_API void strmv_(const char* uplo, const char* trans, const char* diag, const int* n, const float* a, const int* lda, float* x, const int* incx);
OPKIT_BLAS_API void stbmv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const float* a, const int* lda, float* x, const int* incx);
OPKIT_BLAS_API void stpmv_(const char* uplo, const char* trans, const char* diag, const int* n, const float* ap, float* x, const int* incx);
OPKIT_BLAS_API void strsv_(const char* uplo, const char* trans, const char* diag, const int* n, const float* a, const int* lda, float* x, const int* incx);
OPKIT_BLAS_API void stbsv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const float* a, const int* lda, float* x, const int* incx);
OPKIT_BLAS_API void stpsv_(const char* uplo, const char* trans, const char* diag, const int* n, const float* ap, float* x, const int* incx);
OPKIT_BLAS_API void ssymv_(const char* uplo, const int* n, const float* alpha, const float* a, const int* lda, const float* x, const int* incx, const float* beta, float* y, const int* incy);
OPKIT_BLAS_API void ssbmv_(const char* uplo, const int* n, const int* k, const float* alpha, const float* a, const int* lda, const float* x, const int* incx, const float* beta, float* y, const int* incy);
OPKIT_BLAS_API void sspmv_(const char* uplo, const int* n, const float* alpha, const float* ap, const float* x, const int* incx, const float* beta, float* y, const int* incy);
OPKIT_BLAS_API void sger_(const int* m, const int* n, const float* alpha, const float* x, const int* incx, const float* y, const int* incy, float* a, const int* lda);
OPKIT_BLAS_API void ssyr_(const char* uplo, const int* n, const float* alpha, const float* x, const int* incx, float* a, const int* lda);
OPKIT_BLAS_API void sspr_(const char* uplo, const int* n, const float* alpha, const float* x, const int* incx, float* ap);
OPKIT_BLAS_API void ssyr2_(const char* uplo, const int* n, const float* alpha, const float* x, const int* incx, const float* y, const int* incy, float* a, const int* lda);
OPKIT_BLAS_API void sspr2_(const char* uplo, const int* n, const float* alpha, const float* x, const int* incx, const float* y, const int* incy, float* ap);
OPKIT_BLAS_API void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha, const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc);
OPKIT_BLAS_API void ssymm_(const char* side, const char* uplo, const int* m, const int* n, const float* alpha, const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc);
OPKIT_BLAS_API void ssyrk_(const char* uplo, const char* trans, const int* n, const int* k, const float* alpha, const float* a, const int* lda, const float* beta, float* c, const int* ldc);
OPKIT_BLAS_API void ssyr2k_(const char* uplo, const char* trans, const int* n, const int* k, const float* alpha, const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc);
OPKIT_BLAS_API void strmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const float* alpha, const float* a, const int* lda, float* b, const int* ldb);
OPKIT_BLAS_API void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const float* alpha, const float* a, const int* lda, float* b, const int* ldb);
OPKIT_BLAS_API float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy);
OPKIT_BLAS_API float snrm2_(const int* n, const float* x, const int* incx);
OPKIT_BLAS_API float sasum_(const int* n, const float* x, const int* incx);
OPKIT_BLAS_API int isamax_(const int* n, const float* x, const int* incx);
OPKIT_BLAS_API void drotg_(double* a, double* b, double* c, double* s);
OPKIT_BLAS_API void drotmg_(double* d1, double* d2, double* x1, const double* y1, double* param);
OPKIT_BLAS_API void drot_(const int* n, double* x, const int* incx, double* y, const int* incy, const double* c, const double* s);
OPKIT_BLAS_API void drotm_(const int* n, double* x, const int* incx, double* y, const int* incy, const double* param);
OPKIT_BLAS_API void dswap_(const int* n, double* x, const int* incx, double* y, const int* incy);
OPKIT_BLAS_API void dscal_(const int* n, const double* alpha, double* x, const int* incx);
OPKIT_BLAS_API void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy);
OPKIT_BLAS_API void daxpy_(const int* n, const double* alpha, const double* x, const int* incx, double* y, const int* incy);
OPKIT_BLAS_API void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* lda, const double* x, const int* incx, const double* beta, double* y, const int* incy);
OPKIT_BLAS_API void dgbmv_(const char* trans, const int* m, const int* n, const int* kl, const int* ku, const double* alpha, const double* a, const int* lda, const double* x, const int* incx, const double* beta, double* y, const int* incy);
OPKIT_BLAS_API void dtrmv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* lda, double* x, const int* incx);
OPKIT_BLAS_API void dtbmv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const double* a, const int* lda, double* x, const int* incx);
OPKIT_BLAS_API void dtpmv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* ap, double* x, const int* incx);
OPKIT_BLAS_API void dtrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* lda, double* x, const int* incx);
OPKIT_BLAS_API void dtbsv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const double* a, const int* lda, double* x, const int* incx);
OPKIT_BLAS_API void dtpsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* ap, double* x, const int* incx);
OPKIT_BLAS_API void dsymv_(const char* uplo, const int* n, const double* alpha, const double* a, const int* lda, const double* x, const int* incx, const double* beta, double* y, const int* incy);
OPKIT_BLAS_API void dsbmv_(const char* uplo, const int* n, const int* k, const double* alpha, const double* a, const int* lda, const double* x, const int* incx, const double* beta, double* y, const int* incy);
OPKIT_BLAS_API void dspmv_(const char* uplo, const int* n, const double* alpha, const double* ap, const double* x, const int* incx, const double* beta, double* y, const int* incy);
OPKIT_BLAS_API void dger_(const int* m, const int* n, const double* alpha, const double* x, const int* incx, const double* y, const int* incy, double* a, const int* lda);
OPKIT_BLAS_API void dsyr_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, double* a, const int* lda);
OPKIT_BLAS_API void dspr_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, double* ap);
OPKIT_BLAS_API void dsyr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, const double* y, const int* incy, double* a, const int* lda);
OPKIT_BLAS_API void dspr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx, const double* y, const int* incy, double* ap);
OPKIT_BLAS_API void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha, const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c, const int* ldc);
OPKIT_BLAS_API void dsymm_(const char* side, const char* uplo, const int* m, const int* n, const double* alpha, const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c, const int* ldc);
OPKIT_BLAS_API void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a, const int* lda, const double* beta, double* c, const int* ldc);
OPKIT_BLAS_API void dsyr2k_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c, const int* ldc);
OPKIT_BLAS_API void dtrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
OPKIT_BLAS_API void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
OPKIT_BLAS_API double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
OPKIT_BLAS_API double dnrm2_(const int* n, const double* x, const int* incx);
OPKIT_BLAS_API double dasum_(const int* n, const double* x, const int* incx);
OPKIT_BLAS_API int idamax_(const int* n, const double* x, const int* incx);
OPKIT_BLAS_API float sdsdot_(const int* n, const float* sb, const float* x, const int* incx, const float* y, const int* incy);
OPKIT_BLAS_API double dsdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy);
OPKIT_BLAS_API void cswap_(const int* n, void* x, const int* incx, void* y, const int* incy);
OPKIT_BLAS_API void cscal_(const int* n, const void* alpha, void* x, const int* incx);
OPKIT_BLAS_API void ccopy_(const int* n, const void* x, const int* incx, void* y, const int* incy);
OPKIT_BLAS_API void caxpy_(const int* n, const void* alpha, const void* x, const int* incx, void* y, const int* incy);
OPKIT_BLAS_API void cgemv_(const char* trans, const int* m, const int* n, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void cgbmv_(const char* trans, const int* m, const int* n, const int* kl, const int* ku, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void ctrmv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ctbmv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ctpmv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* ap, void* x, const int* incx);
OPKIT_BLAS_API void ctrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ctbsv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ctpsv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* ap, void* x, const int* incx);
OPKIT_BLAS_API void chemv_(const char* uplo, const int* n, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void chbmv_(const char* uplo, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void chpmv_(const char* uplo, const int* n, const void* alpha, const void* ap, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void cgeru_(const int* m, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* a, const int* lda);
OPKIT_BLAS_API void cgerc_(const int* m, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* a, const int* lda);
OPKIT_BLAS_API void cher2_(const char* uplo, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* a, const int* lda);
OPKIT_BLAS_API void chpr2_(const char* uplo, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* ap);
OPKIT_BLAS_API void cgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void csymm_(const char* side, const char* uplo, const int* m, const int* n, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void csyrk_(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void csyr2k_(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void ctrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const void* alpha, const void* a, const int* lda, void* b, const int* ldb);
OPKIT_BLAS_API void ctrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const void* alpha, const void* a, const int* lda, void* b, const int* ldb);
OPKIT_BLAS_API void chemm_(const char* side, const char* uplo, const int* m, const int* n, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void cher2k_(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const float* beta, void* c, const int* ldc);
OPKIT_BLAS_API void cherk_(const char* uplo, const char* trans, const int* n, const int* k, const float* alpha, const void* a, const int* lda, const float* beta, void* c, const int* ldc);
OPKIT_BLAS_API void cher_(const char* uplo, const int* n, const float* alpha, const void* x, const int* incx, void* a, const int* lda);
OPKIT_BLAS_API void chpr_(const char* uplo, const int* n, const float* alpha, const void* x, const int* incx, void* ap);
OPKIT_BLAS_API void csscal_(const int* n, const float* alpha, void* x, const int* incx);
OPKIT_BLAS_API float scnrm2_(const int* n, const void* x, const int* incx);
OPKIT_BLAS_API float scasum_(const int* n, const void* x, const int* incx);
OPKIT_BLAS_API int icamax_(const int* n, const void* x, const int* incx);
OPKIT_BLAS_API void zswap_(const int* n, void* x, const int* incx, void* y, const int* incy);
OPKIT_BLAS_API void zscal_(const int* n, const void* alpha, void* x, const int* incx);
OPKIT_BLAS_API void zcopy_(const int* n, const void* x, const int* incx, void* y, const int* incy);
OPKIT_BLAS_API void zaxpy_(const int* n, const void* alpha, const void* x, const int* incx, void* y, const int* incy);
OPKIT_BLAS_API void zgemv_(const char* trans, const int* m, const int* n, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void zgbmv_(const char* trans, const int* m, const int* n, const int* kl, const int* ku, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void ztrmv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ztbmv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ztpmv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* ap, void* x, const int* incx);
OPKIT_BLAS_API void ztrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ztbsv_(const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const void* a, const int* lda, void* x, const int* incx);
OPKIT_BLAS_API void ztpsv_(const char* uplo, const char* trans, const char* diag, const int* n, const void* ap, void* x, const int* incx);
OPKIT_BLAS_API void zhemv_(const char* uplo, const int* n, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void zhbmv_(const char* uplo, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void zhpmv_(const char* uplo, const int* n, const void* alpha, const void* ap, const void* x, const int* incx, const void* beta, void* y, const int* incy);
OPKIT_BLAS_API void zgeru_(const int* m, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* a, const int* lda);
OPKIT_BLAS_API void zgerc_(const int* m, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* a, const int* lda);
OPKIT_BLAS_API void zher2_(const char* uplo, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* a, const int* lda);
OPKIT_BLAS_API void zhpr2_(const char* uplo, const int* n, const void* alpha, const void* x, const int* incx, const void* y, const int* incy, void* ap);
OPKIT_BLAS_API void zgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void zsymm_(const char* side, const char* uplo, const int* m, const int* n, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void zsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void zsyr2k_(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void ztrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const void* alpha, const void* a, const int* lda, void* b, const int* ldb);
OPKIT_BLAS_API void ztrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n, const void* alpha, const void* a, const int* lda, void* b, const int* ldb);
OPKIT_BLAS_API void zhemm_(const char* side, const char* uplo, const int* m, const int* n, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
OPKIT_BLAS_API void zher2k_(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, const void* a, const int* lda, const void* b, const int* ldb, const double* beta, void* c, const int* ldc);
OPKIT_BLAS_API void zherk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const void* a, const int* lda, const double* beta, void* c, const int* ldc);
OPKIT_BLAS_API void zher_(const char* uplo, const int* n, const double* alpha, const void* x, const int* incx, void* a, const int* lda);
OPKIT_BLAS_API void zhpr_(const char* uplo, const int* n, const double* alpha, const void* x, const int* incx, void* ap);
OPKIT_BLAS_API void zdscal_(const int* n, const double* alpha, void* x, const int* incx);
OPKIT_BLAS_API double dznrm2_(const int* n, const void* x, const int* incx);
OPKIT_BLAS_API double dzasum_(const int* n, const void* x, const int* incx);
OPKIT_BLAS_API int izamax_(const int* n, const void* x, const int* incx);

#if !defined(OPKIT_BLAS_NO_CBLAS) && !defined(CBLAS_H) && !defined(OPKIT_BLAS_CBLAS_DECLARED)
#define OPKIT_BLAS_CBLAS_DECLARED
/* CBLAS */
typedef enum CBLAS_ORDER {CblasRowMajor = 101, CblasColMajor = 102} CBLAS_ORDER;
typedef enum CBLAS_ORDER CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE {CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113,
                              CblasConjNoTrans = 114} CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO {CblasUpper = 121, CblasLower = 122} CBLAS_UPLO;
typedef enum CBLAS_DIAG {CblasNonUnit = 131, CblasUnit = 132} CBLAS_DIAG;
typedef enum CBLAS_SIDE {CblasLeft = 141, CblasRight = 142} CBLAS_SIDE;
OPKIT_BLAS_API float cblas_sdot(int n, const float* x, int incx, const float* y, int incy);
OPKIT_BLAS_API float cblas_snrm2(int n, const float* x, int incx);
OPKIT_BLAS_API float cblas_sasum(int n, const float* x, int incx);
OPKIT_BLAS_API size_t cblas_isamax(int n, const float* x, int incx);
OPKIT_BLAS_API void cblas_sswap(int n, float* x, int incx, float* y, int incy);
OPKIT_BLAS_API void cblas_scopy(int n, const float* x, int incx, float* y, int incy);
OPKIT_BLAS_API void cblas_saxpy(int n, float alpha, const float* x, int incx, float* y, int incy);
OPKIT_BLAS_API void cblas_sscal(int n, float alpha, float* x, int incx);
OPKIT_BLAS_API void cblas_srotg(float* a, float* b, float* c, float* s);
OPKIT_BLAS_API void cblas_srot(int n, float* x, int incx, float* y, int incy, float c, float s);
OPKIT_BLAS_API void cblas_sgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m, int n, float alpha, const float* a, int lda, const float* x, int incx, float beta, float* y, int incy);
OPKIT_BLAS_API void cblas_sgbmv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m, int n, int kl, int ku, float alpha, const float* a, int lda, const float* x, int incx, float beta, float* y, int incy);
OPKIT_BLAS_API void cblas_strmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const float* a, int lda, float* x, int incx);
OPKIT_BLAS_API void cblas_stbmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, int k, const float* a, int lda, float* x, int incx);
OPKIT_BLAS_API void cblas_stpmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const float* ap, float* x, int incx);
OPKIT_BLAS_API void cblas_strsv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const float* a, int lda, float* x, int incx);
OPKIT_BLAS_API void cblas_stbsv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, int k, const float* a, int lda, float* x, int incx);
OPKIT_BLAS_API void cblas_stpsv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const float* ap, float* x, int incx);
OPKIT_BLAS_API void cblas_ssymv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, float alpha, const float* a, int lda, const float* x, int incx, float beta, float* y, int incy);
OPKIT_BLAS_API void cblas_ssbmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, int k, float alpha, const float* a, int lda, const float* x, int incx, float beta, float* y, int incy);
OPKIT_BLAS_API void cblas_sspmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, float alpha, const float* ap, const float* x, int incx, float beta, float* y, int incy);
OPKIT_BLAS_API void cblas_sger(enum CBLAS_ORDER order, int m, int n, float alpha, const float* x, int incx, const float* y, int incy, float* a, int lda);
OPKIT_BLAS_API void cblas_ssyr(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, float alpha, const float* x, int incx, float* a, int lda);
OPKIT_BLAS_API void cblas_sspr(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, float alpha, const float* x, int incx, float* ap);
OPKIT_BLAS_API void cblas_ssyr2(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, float alpha, const float* x, int incx, const float* y, int incy, float* a, int lda);
OPKIT_BLAS_API void cblas_sspr2(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, float alpha, const float* x, int incx, const float* y, int incy, float* ap);
OPKIT_BLAS_API void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
OPKIT_BLAS_API void cblas_ssymm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
OPKIT_BLAS_API void cblas_ssyrk(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, float alpha, const float* a, int lda, float beta, float* c, int ldc);
OPKIT_BLAS_API void cblas_ssyr2k(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
OPKIT_BLAS_API void cblas_strmm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, float alpha, const float* a, int lda, float* b, int ldb);
OPKIT_BLAS_API void cblas_strsm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, float alpha, const float* a, int lda, float* b, int ldb);
OPKIT_BLAS_API double cblas_ddot(int n, const double* x, int incx, const double* y, int incy);
OPKIT_BLAS_API double cblas_dnrm2(int n, const double* x, int incx);
OPKIT_BLAS_API double cblas_dasum(int n, const double* x, int incx);
OPKIT_BLAS_API size_t cblas_idamax(int n, const double* x, int incx);
OPKIT_BLAS_API void cblas_dswap(int n, double* x, int incx, double* y, int incy);
OPKIT_BLAS_API void cblas_dcopy(int n, const double* x, int incx, double* y, int incy);
OPKIT_BLAS_API void cblas_daxpy(int n, double alpha, const double* x, int incx, double* y, int incy);
OPKIT_BLAS_API void cblas_dscal(int n, double alpha, double* x, int incx);
OPKIT_BLAS_API void cblas_drotg(double* a, double* b, double* c, double* s);
OPKIT_BLAS_API void cblas_drot(int n, double* x, int incx, double* y, int incy, double c, double s);
OPKIT_BLAS_API void cblas_dgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m, int n, double alpha, const double* a, int lda, const double* x, int incx, double beta, double* y, int incy);
OPKIT_BLAS_API void cblas_dgbmv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m, int n, int kl, int ku, double alpha, const double* a, int lda, const double* x, int incx, double beta, double* y, int incy);
OPKIT_BLAS_API void cblas_dtrmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const double* a, int lda, double* x, int incx);
OPKIT_BLAS_API void cblas_dtbmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, int k, const double* a, int lda, double* x, int incx);
OPKIT_BLAS_API void cblas_dtpmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const double* ap, double* x, int incx);
OPKIT_BLAS_API void cblas_dtrsv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const double* a, int lda, double* x, int incx);
OPKIT_BLAS_API void cblas_dtbsv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, int k, const double* a, int lda, double* x, int incx);
OPKIT_BLAS_API void cblas_dtpsv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, enum CBLAS_DIAG diag, int n, const double* ap, double* x, int incx);
OPKIT_BLAS_API void cblas_dsymv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, double alpha, const double* a, int lda, const double* x, int incx, double beta, double* y, int incy);
OPKIT_BLAS_API void cblas_dsbmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, int k, double alpha, const double* a, int lda, const double* x, int incx, double beta, double* y, int incy);
OPKIT_BLAS_API void cblas_dspmv(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, double alpha, const double* ap, const double* x, int incx, double beta, double* y, int incy);
OPKIT_BLAS_API void cblas_dger(enum CBLAS_ORDER order, int m, int n, double alpha, const double* x, int incx, const double* y, int incy, double* a, int lda);
OPKIT_BLAS_API void cblas_dsyr(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, double alpha, const double* x, int incx, double* a, int lda);
OPKIT_BLAS_API void cblas_dspr(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, double alpha, const double* x, int incx, double* ap);
OPKIT_BLAS_API void cblas_dsyr2(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, double alpha, const double* x, int incx, const double* y, int incy, double* a, int lda);
OPKIT_BLAS_API void cblas_dspr2(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, int n, double alpha, const double* x, int incx, const double* y, int incy, double* ap);
OPKIT_BLAS_API void cblas_dgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc);
OPKIT_BLAS_API void cblas_dsymm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, double alpha, const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc);
OPKIT_BLAS_API void cblas_dsyrk(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, double alpha, const double* a, int lda, double beta, double* c, int ldc);
OPKIT_BLAS_API void cblas_dsyr2k(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc);
OPKIT_BLAS_API void cblas_dtrmm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, double alpha, const double* a, int lda, double* b, int ldb);
OPKIT_BLAS_API void cblas_dtrsm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, double alpha, const double* a, int lda, double* b, int ldb);
OPKIT_BLAS_API float cblas_sdsdot(int n, float alpha, const float* x, int incx, const float* y, int incy);
OPKIT_BLAS_API double cblas_dsdot(int n, const float* x, int incx, const float* y, int incy);
OPKIT_BLAS_API void cblas_cgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m, int n, const void* alpha, const void* a, int lda, const void* x, int incx, const void* beta, void* y, int incy);
OPKIT_BLAS_API void cblas_cgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb, int m, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_csymm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_chemm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_csyrk(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, const void* alpha, const void* a, int lda, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_csyr2k(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_ctrmm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, const void* alpha, const void* a, int lda, void* b, int ldb);
OPKIT_BLAS_API void cblas_ctrsm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, const void* alpha, const void* a, int lda, void* b, int ldb);
OPKIT_BLAS_API void cblas_cherk(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, float alpha, const void* a, int lda, float beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_cher2k(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb, float beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_caxpy(int n, const void* alpha, const void* x, int incx, void* y, int incy);
OPKIT_BLAS_API void cblas_cscal(int n, const void* alpha, void* x, int incx);
OPKIT_BLAS_API void cblas_ccopy(int n, const void* x, int incx, void* y, int incy);
OPKIT_BLAS_API void cblas_cswap(int n, void* x, int incx, void* y, int incy);
OPKIT_BLAS_API void cblas_cdotu_sub(int n, const void* x, int incx, const void* y, int incy, void* dotu);
OPKIT_BLAS_API void cblas_cdotc_sub(int n, const void* x, int incx, const void* y, int incy, void* dotc);
OPKIT_BLAS_API size_t cblas_icamax(int n, const void* x, int incx);
OPKIT_BLAS_API void cblas_zgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m, int n, const void* alpha, const void* a, int lda, const void* x, int incx, const void* beta, void* y, int incy);
OPKIT_BLAS_API void cblas_zgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb, int m, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_zsymm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_zhemm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, int m, int n, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_zsyrk(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, const void* alpha, const void* a, int lda, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_zsyr2k(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb, const void* beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_ztrmm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, const void* alpha, const void* a, int lda, void* b, int ldb);
OPKIT_BLAS_API void cblas_ztrsm(enum CBLAS_ORDER order, enum CBLAS_SIDE side, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE transa, enum CBLAS_DIAG diag, int m, int n, const void* alpha, const void* a, int lda, void* b, int ldb);
OPKIT_BLAS_API void cblas_zherk(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, double alpha, const void* a, int lda, double beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_zher2k(enum CBLAS_ORDER order, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE trans, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb, double beta, void* c, int ldc);
OPKIT_BLAS_API void cblas_zaxpy(int n, const void* alpha, const void* x, int incx, void* y, int incy);
OPKIT_BLAS_API void cblas_zscal(int n, const void* alpha, void* x, int incx);
OPKIT_BLAS_API void cblas_zcopy(int n, const void* x, int incx, void* y, int incy);
OPKIT_BLAS_API void cblas_zswap(int n, void* x, int incx, void* y, int incy);
OPKIT_BLAS_API void cblas_zdotu_sub(int n, const void* x, int incx, const void* y, int incy, void* dotu);
OPKIT_BLAS_API void cblas_zdotc_sub(int n, const void* x, int incx, const void* y, int incy, void* dotc);
OPKIT_BLAS_API size_t cblas_izamax(int n, const void* x, int incx);
OPKIT_BLAS_API float cblas_scnrm2(int n, const void* x, int incx);
OPKIT_BLAS_API double cblas_dznrm2(int n, const void* x, int incx);
OPKIT_BLAS_API float cblas_scasum(int n, const void* x, int incx);
OPKIT_BLAS_API double cblas_dzasum(int n, const void* x, int incx);
OPKIT_BLAS_API void cblas_csscal(int n, float alpha, void* x, int incx);
OPKIT_BLAS_API void cblas_zdscal(int n, double alpha, void* x, int incx);
#endif

#ifdef __cplusplus
}
#endif

#if defined(__cplusplus) && !defined(OPKIT_BLAS_NO_THEANO_PROTOTYPES)
/* Theano's prototypes (theano.tensor.blas_headers), where they differ from the ones above (char* for
   const char*): C++ overloads, so code written for Theano's header compiles, its calls and its function
   pointers (Theano's BatchedDot passes dgemm_ as void (*)(char*, char*, ...)) alike. Each forwards to the
   routine above, always inlined: a call names the routine itself (and a link error, its symbol). The
   address of an overloaded name needs a type: `(void (*)(void))&dgemm_` does not compile in C++ (give
   the pointer's type, or define OPKIT_BLAS_NO_THEANO_PROTOTYPES before this header). Generated from
   Theano 1.0's header; tests/cop/test_blas.py compiles both forms. */
#define OPKIT_BLAS_FORWARD static inline __attribute__((always_inline))
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void sgemv_(char* a0, const int* a1, const int* a2, const float* a3, const float* a4, const int* a5, const float* a6, const int* a7, const float* a8, float* a9, const int* a10) { sgemv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void sgbmv_(char* a0, const int* a1, const int* a2, const int* a3, const int* a4, const float* a5, const float* a6, const int* a7, const float* a8, const int* a9, const float* a10, float* a11, const int* a12) { sgbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssymv_(char* a0, const int* a1, const float* a2, const float* a3, const int* a4, const float* a5, const int* a6, const float* a7, float* a8, const int* a9) { ssymv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssbmv_(char* a0, const int* a1, const int* a2, const float* a3, const float* a4, const int* a5, const float* a6, const int* a7, const float* a8, float* a9, const int* a10) { ssbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void sspmv_(char* a0, const int* a1, const float* a2, const float* a3, const float* a4, const int* a5, const float* a6, float* a7, const int* a8) { sspmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void strmv_(char* a0, char* a1, char* a2, const int* a3, const float* a4, const int* a5, float* a6, const int* a7) { strmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void stbmv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const float* a5, const int* a6, float* a7, const int* a8) { stbmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void strsv_(char* a0, char* a1, char* a2, const int* a3, const float* a4, const int* a5, float* a6, const int* a7) { strsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void stbsv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const float* a5, const int* a6, float* a7, const int* a8) { stbsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void stpmv_(char* a0, char* a1, char* a2, const int* a3, const float* a4, float* a5, const int* a6) { stpmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void stpsv_(char* a0, char* a1, char* a2, const int* a3, const float* a4, float* a5, const int* a6) { stpsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssyr_(char* a0, const int* a1, const float* a2, const float* a3, const int* a4, float* a5, const int* a6) { ssyr_((const char*)a0, a1, a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void sspr_(char* a0, const int* a1, const float* a2, const float* a3, const int* a4, float* a5) { sspr_((const char*)a0, a1, a2, a3, a4, a5); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void sspr2_(char* a0, const int* a1, const float* a2, const float* a3, const int* a4, const float* a5, const int* a6, float* a7) { sspr2_((const char*)a0, a1, a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssyr2_(char* a0, const int* a1, const float* a2, const float* a3, const int* a4, const float* a5, const int* a6, float* a7, const int* a8) { ssyr2_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dgemv_(char* a0, const int* a1, const int* a2, const double* a3, const double* a4, const int* a5, const double* a6, const int* a7, const double* a8, double* a9, const int* a10) { dgemv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dgbmv_(char* a0, const int* a1, const int* a2, const int* a3, const int* a4, const double* a5, const double* a6, const int* a7, const double* a8, const int* a9, const double* a10, double* a11, const int* a12) { dgbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsymv_(char* a0, const int* a1, const double* a2, const double* a3, const int* a4, const double* a5, const int* a6, const double* a7, double* a8, const int* a9) { dsymv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsbmv_(char* a0, const int* a1, const int* a2, const double* a3, const double* a4, const int* a5, const double* a6, const int* a7, const double* a8, double* a9, const int* a10) { dsbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dspmv_(char* a0, const int* a1, const double* a2, const double* a3, const double* a4, const int* a5, const double* a6, double* a7, const int* a8) { dspmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtrmv_(char* a0, char* a1, char* a2, const int* a3, const double* a4, const int* a5, double* a6, const int* a7) { dtrmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtbmv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const double* a5, const int* a6, double* a7, const int* a8) { dtbmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtrsv_(char* a0, char* a1, char* a2, const int* a3, const double* a4, const int* a5, double* a6, const int* a7) { dtrsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtbsv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const double* a5, const int* a6, double* a7, const int* a8) { dtbsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtpmv_(char* a0, char* a1, char* a2, const int* a3, const double* a4, double* a5, const int* a6) { dtpmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtpsv_(char* a0, char* a1, char* a2, const int* a3, const double* a4, double* a5, const int* a6) { dtpsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsyr_(char* a0, const int* a1, const double* a2, const double* a3, const int* a4, double* a5, const int* a6) { dsyr_((const char*)a0, a1, a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dspr_(char* a0, const int* a1, const double* a2, const double* a3, const int* a4, double* a5) { dspr_((const char*)a0, a1, a2, a3, a4, a5); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dspr2_(char* a0, const int* a1, const double* a2, const double* a3, const int* a4, const double* a5, const int* a6, double* a7) { dspr2_((const char*)a0, a1, a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsyr2_(char* a0, const int* a1, const double* a2, const double* a3, const int* a4, const double* a5, const int* a6, double* a7, const int* a8) { dsyr2_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cgemv_(char* a0, const int* a1, const int* a2, const void* a3, const void* a4, const int* a5, const void* a6, const int* a7, const void* a8, void* a9, const int* a10) { cgemv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cgbmv_(char* a0, const int* a1, const int* a2, const int* a3, const int* a4, const void* a5, const void* a6, const int* a7, const void* a8, const int* a9, const void* a10, void* a11, const int* a12) { cgbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void chemv_(char* a0, const int* a1, const void* a2, const void* a3, const int* a4, const void* a5, const int* a6, const void* a7, void* a8, const int* a9) { chemv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void chbmv_(char* a0, const int* a1, const int* a2, const void* a3, const void* a4, const int* a5, const void* a6, const int* a7, const void* a8, void* a9, const int* a10) { chbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void chpmv_(char* a0, const int* a1, const void* a2, const void* a3, const void* a4, const int* a5, const void* a6, void* a7, const int* a8) { chpmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctrmv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, const int* a5, void* a6, const int* a7) { ctrmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctbmv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const void* a5, const int* a6, void* a7, const int* a8) { ctbmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctpmv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, void* a5, const int* a6) { ctpmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctrsv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, const int* a5, void* a6, const int* a7) { ctrsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctbsv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const void* a5, const int* a6, void* a7, const int* a8) { ctbsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctpsv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, void* a5, const int* a6) { ctpsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cher_(char* a0, const int* a1, const float* a2, const void* a3, const int* a4, void* a5, const int* a6) { cher_((const char*)a0, a1, a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cher2_(char* a0, const int* a1, const void* a2, const void* a3, const int* a4, const void* a5, const int* a6, void* a7, const int* a8) { cher2_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void chpr_(char* a0, const int* a1, const float* a2, const void* a3, const int* a4, void* a5) { chpr_((const char*)a0, a1, a2, a3, a4, a5); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void chpr2_(char* a0, const int* a1, const float* a2, const void* a3, const int* a4, const void* a5, const int* a6, void* a7) { chpr2_((const char*)a0, a1, (const void*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zgemv_(char* a0, const int* a1, const int* a2, const void* a3, const void* a4, const int* a5, const void* a6, const int* a7, const void* a8, void* a9, const int* a10) { zgemv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zgbmv_(char* a0, const int* a1, const int* a2, const int* a3, const int* a4, const void* a5, const void* a6, const int* a7, const void* a8, const int* a9, const void* a10, void* a11, const int* a12) { zgbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zhemv_(char* a0, const int* a1, const void* a2, const void* a3, const int* a4, const void* a5, const int* a6, const void* a7, void* a8, const int* a9) { zhemv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zhbmv_(char* a0, const int* a1, const int* a2, const void* a3, const void* a4, const int* a5, const void* a6, const int* a7, const void* a8, void* a9, const int* a10) { zhbmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zhpmv_(char* a0, const int* a1, const void* a2, const void* a3, const void* a4, const int* a5, const void* a6, void* a7, const int* a8) { zhpmv_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztrmv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, const int* a5, void* a6, const int* a7) { ztrmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztbmv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const void* a5, const int* a6, void* a7, const int* a8) { ztbmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztpmv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, void* a5, const int* a6) { ztpmv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztrsv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, const int* a5, void* a6, const int* a7) { ztrsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztbsv_(char* a0, char* a1, char* a2, const int* a3, const int* a4, const void* a5, const int* a6, void* a7, const int* a8) { ztbsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztpsv_(char* a0, char* a1, char* a2, const int* a3, const void* a4, void* a5, const int* a6) { ztpsv_((const char*)a0, (const char*)a1, (const char*)a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zher_(char* a0, const int* a1, const double* a2, const void* a3, const int* a4, void* a5, const int* a6) { zher_((const char*)a0, a1, a2, a3, a4, a5, a6); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zher2_(char* a0, const int* a1, const void* a2, const void* a3, const int* a4, const void* a5, const int* a6, void* a7, const int* a8) { zher2_((const char*)a0, a1, a2, a3, a4, a5, a6, a7, a8); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zhpr_(char* a0, const int* a1, const double* a2, const void* a3, const int* a4, void* a5) { zhpr_((const char*)a0, a1, a2, a3, a4, a5); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zhpr2_(char* a0, const int* a1, const double* a2, const void* a3, const int* a4, const void* a5, const int* a6, void* a7) { zhpr2_((const char*)a0, a1, (const void*)a2, a3, a4, a5, a6, a7); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void sgemm_(char* a0, char* a1, const int* a2, const int* a3, const int* a4, const float* a5, const float* a6, const int* a7, const float* a8, const int* a9, const float* a10, float* a11, const int* a12) { sgemm_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssymm_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, const int* a8, const float* a9, float* a10, const int* a11) { ssymm_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssyrk_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, float* a8, const int* a9) { ssyrk_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ssyr2k_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, const int* a8, const float* a9, float* a10, const int* a11) { ssyr2k_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void strmm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const float* a6, const float* a7, const int* a8, float* a9, const int* a10) { strmm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void strsm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const float* a6, const float* a7, const int* a8, float* a9, const int* a10) { strsm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dgemm_(char* a0, char* a1, const int* a2, const int* a3, const int* a4, const double* a5, const double* a6, const int* a7, const double* a8, const int* a9, const double* a10, double* a11, const int* a12) { dgemm_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsymm_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, const int* a8, const double* a9, double* a10, const int* a11) { dsymm_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsyrk_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, double* a8, const int* a9) { dsyrk_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dsyr2k_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, const int* a8, const double* a9, double* a10, const int* a11) { dsyr2k_((const char*)a0, (const char*)a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtrmm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const double* a6, const double* a7, const int* a8, double* a9, const int* a10) { dtrmm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void dtrsm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const double* a6, const double* a7, const int* a8, double* a9, const int* a10) { dtrsm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, a6, a7, a8, a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cgemm_(char* a0, char* a1, const int* a2, const int* a3, const int* a4, const float* a5, const float* a6, const int* a7, const float* a8, const int* a9, const float* a10, float* a11, const int* a12) { cgemm_((const char*)a0, (const char*)a1, a2, a3, a4, (const void*)a5, (const void*)a6, a7, (const void*)a8, a9, (const void*)a10, (void*)a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void csymm_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, const int* a8, const float* a9, float* a10, const int* a11) { csymm_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, (const void*)a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void chemm_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, const int* a8, const float* a9, float* a10, const int* a11) { chemm_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, (const void*)a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void csyrk_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, float* a8, const int* a9) { csyrk_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, (void*)a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cherk_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, float* a8, const int* a9) { cherk_((const char*)a0, (const char*)a1, a2, a3, a4, (const void*)a5, a6, a7, (void*)a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void csyr2k_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, const int* a8, const float* a9, float* a10, const int* a11) { csyr2k_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, (const void*)a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void cher2k_(char* a0, char* a1, const int* a2, const int* a3, const float* a4, const float* a5, const int* a6, const float* a7, const int* a8, const float* a9, float* a10, const int* a11) { cher2k_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctrmm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const float* a6, const float* a7, const int* a8, float* a9, const int* a10) { ctrmm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, (const void*)a6, (const void*)a7, a8, (void*)a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ctrsm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const float* a6, const float* a7, const int* a8, float* a9, const int* a10) { ctrsm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, (const void*)a6, (const void*)a7, a8, (void*)a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zgemm_(char* a0, char* a1, const int* a2, const int* a3, const int* a4, const double* a5, const double* a6, const int* a7, const double* a8, const int* a9, const double* a10, double* a11, const int* a12) { zgemm_((const char*)a0, (const char*)a1, a2, a3, a4, (const void*)a5, (const void*)a6, a7, (const void*)a8, a9, (const void*)a10, (void*)a11, a12); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zsymm_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, const int* a8, const double* a9, double* a10, const int* a11) { zsymm_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, (const void*)a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zhemm_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, const int* a8, const double* a9, double* a10, const int* a11) { zhemm_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, (const void*)a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zsyrk_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, double* a8, const int* a9) { zsyrk_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, (void*)a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zherk_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, double* a8, const int* a9) { zherk_((const char*)a0, (const char*)a1, a2, a3, a4, (const void*)a5, a6, a7, (void*)a8, a9); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zsyr2k_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, const int* a8, const double* a9, double* a10, const int* a11) { zsyr2k_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, (const void*)a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void zher2k_(char* a0, char* a1, const int* a2, const int* a3, const double* a4, const double* a5, const int* a6, const double* a7, const int* a8, const double* a9, double* a10, const int* a11) { zher2k_((const char*)a0, (const char*)a1, a2, a3, (const void*)a4, (const void*)a5, a6, (const void*)a7, a8, a9, (void*)a10, a11); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztrmm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const double* a6, const double* a7, const int* a8, double* a9, const int* a10) { ztrmm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, (const void*)a6, (const void*)a7, a8, (void*)a9, a10); }
OPKIT_BLAS_API OPKIT_BLAS_FORWARD void ztrsm_(char* a0, char* a1, char* a2, char* a3, const int* a4, const int* a5, const double* a6, const double* a7, const int* a8, double* a9, const int* a10) { ztrsm_((const char*)a0, (const char*)a1, (const char*)a2, (const char*)a3, a4, a5, (const void*)a6, (const void*)a7, a8, (void*)a9, a10); }
#endif

#endif /* OPKIT_BLAS_H */
