/* OpenBLAS's thread controls, for ops that set them around a call (opkit.cop.blas.openblas_threads_text()).
   The scipy-openblas32 wheel names them with a scipy_ prefix: mapped when OPKIT_BLAS_SCIPY_NAMES is defined. */
#ifndef OPKIT_BLAS_OPENBLAS_THREADS_H
#define OPKIT_BLAS_OPENBLAS_THREADS_H
#if defined(OPKIT_BLAS_SCIPY_NAMES) && !defined(openblas_set_num_threads)
#define openblas_set_num_threads scipy_openblas_set_num_threads
#define openblas_get_num_threads scipy_openblas_get_num_threads
#define goto_set_num_threads     scipy_goto_set_num_threads
#endif
#ifdef __cplusplus
extern "C" {
#endif
void openblas_set_num_threads(int threads);
int openblas_get_num_threads(void);
void goto_set_num_threads(int threads);
#ifdef __cplusplus
}
#endif
#endif /* OPKIT_BLAS_OPENBLAS_THREADS_H */
