#section kernels
extern "C" __global__ void APPLY_SPECIFIC(broken)(DTYPE_INPUT_0* x)
{
    x[0] = 1;
    x[1] = undeclared_value;
}
