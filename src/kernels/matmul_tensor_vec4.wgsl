// The tensor-core GEMM (lib/matmul_tensor_block.wgsl) in 128×128 blocks of 2×4 subgroups;
// its operands read a vec4 at a time (rows of whole vec4s).
enable f16;
diagnostic(off, chromium.subgroup_matrix_uniformity);
enable chromium_experimental_subgroup_matrix;

const BM: u32 = 128u;
const BN: u32 = 128u;
const WR: u32 = 2u;
const WC: u32 = 4u;
//! include "matmul_tensor_block.wgsl"
//! include "tensor_operands_vec4.wgsl"
