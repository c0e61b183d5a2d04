// The tensor-core GEMM (lib/matmul_tensor_block.wgsl) in 64×64 blocks of 2×2 subgroups;
// its operands read one float at a time (any layout).
enable f16;
diagnostic(off, chromium.subgroup_matrix_uniformity);
enable chromium_experimental_subgroup_matrix;

const BM: u32 = 64u;
const BN: u32 = 64u;
const WR: u32 = 2u;
const WC: u32 = 2u;
//! include "matmul_tensor_block.wgsl"
//! include "tensor_operands_scalar.wgsl"
