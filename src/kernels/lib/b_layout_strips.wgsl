// B_STRIPS for the LAYOUT=strips variant of a GEMM kernel: B is a whole [k, n] matrix in column
// strips (wgpt::Layout), neither transposed nor batched.
const B_STRIPS: bool = true;
