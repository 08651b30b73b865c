/* Intel MKL's thread controls, for ops that set them around a call (opkit.cop.blas.mkl_threads_text()).
   MKL exports them in upper case; the lower-case names ops use are mapped onto those. */
#ifndef OPKIT_BLAS_MKL_THREADS_H
#define OPKIT_BLAS_MKL_THREADS_H
#ifdef __cplusplus
extern "C" {
#endif
int MKL_Set_Num_Threads_Local(int threads);
void MKL_Set_Num_Threads(int threads);
int MKL_Get_Max_Threads(void);
int MKL_Domain_Set_Num_Threads(int threads, int domain);
int MKL_Domain_Get_Max_Threads(int domain);
void MKL_Set_Dynamic(int on);
int MKL_Get_Dynamic(void);
#ifdef __cplusplus
}
#endif
#define mkl_set_num_threads_local  MKL_Set_Num_Threads_Local
#define mkl_set_num_threads        MKL_Set_Num_Threads
#define mkl_get_max_threads        MKL_Get_Max_Threads
#define mkl_domain_set_num_threads MKL_Domain_Set_Num_Threads
#define mkl_domain_get_max_threads MKL_Domain_Get_Max_Threads
#define mkl_set_dynamic            MKL_Set_Dynamic
#define mkl_get_dynamic            MKL_Get_Dynamic
#endif /* OPKIT_BLAS_MKL_THREADS_H */
