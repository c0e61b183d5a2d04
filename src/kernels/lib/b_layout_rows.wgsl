// B_STRIPS for the LAYOUT=rows variant of a GEMM kernel (and every kernel without LAYOUT variants):
// B is row-major, or transposed.
const B_STRIPS: bool = false;
