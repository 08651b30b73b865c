/* Does a BLAS link, load and give right numbers with 32-bit integers? (opkit.cop.blas)

   Built with the flags under test and run: prints "fortran=ok cblas=yes|no" and
   exits 0 when the Fortran dgemm_/sgemm_/ddot_ give the right numbers. A BLAS
   built for 64-bit integers reads each int with its neighbour as one number and
   fails here (wrong numbers, an error from xerbla, or a crash). CBLAS is looked
   up weakly: a Fortran-only BLAS passes, and says so. */
#include <stdio.h>
#include "opkit_blas.h"

extern "C" void cblas_dgemm(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int, double,
                            const double*, int, const double*, int, double, double*, int) __attribute__((weak));

static int close_to(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

int main(void)
{
    /* A (2x3) times B (3x2), column-major; each int sits next to a large one. */
    double a[6] = {1, 4, 2, 5, 3, 6}, b[6] = {7, 9, 11, 8, 10, 12}, c[4] = {0, 0, 0, 0};
    float af[6] = {1, 4, 2, 5, 3, 6}, bf[6] = {7, 9, 11, 8, 10, 12}, cf[4] = {0, 0, 0, 0};
    const double expected[4] = {58, 139, 64, 154};
    int m[2] = {2, 1 << 20}, n[2] = {2, 1 << 20}, k[2] = {3, 1 << 20}, one[2] = {1, 1 << 20};
    double alpha = 1, beta = 0;
    float alphaf = 1, betaf = 0;
    char no = 'N';
    dgemm_(&no, &no, m, n, k, &alpha, a, m, b, k, &beta, c, m);
    sgemm_(&no, &no, m, n, k, &alphaf, af, m, bf, k, &betaf, cf, m);
    for (int i = 0; i < 4; ++i) {
        if (!close_to(c[i], expected[i]) || !close_to(cf[i], expected[i])) {
            printf("gemm gave %g where %g is right\n", close_to(c[i], expected[i]) ? cf[i] : c[i], expected[i]);
            return 1;
        }
    }
    if (!close_to(ddot_(k, a, one, a, one), 21)) {
        printf("ddot gave a wrong number\n");
        return 1;
    }
    int cblas = 0;
    if (cblas_dgemm) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0, a, 2, b, 3, 0.0, c, 2);
        cblas = close_to(c[0], expected[0]) && close_to(c[3], expected[3]);
    }
    printf("fortran=ok cblas=%s\n", cblas ? "yes" : "no");
    return 0;
}
