// Shared by the tensor-core GEMM kernels (matmul_tensor*.wgsl): C = scale · op(A) · op(B) + bias,
// batched, then the epilogue, with f16 operands and f32 sums on the device's subgroup matrices
// (kernel_specialization.h supplies SUBGROUP_MATRIX_M/N/K and SUBGROUP_SIZE). The same parameters,
// split-k and output placement as the f32 kernels (lib/gemm_output.wgsl). The includer enables f16
// and subgroup matrices (turning off their uniformity check: every subgroup works on its own
// tiles), sets the block, BM × BN outputs computed by WR × WC subgroups, declares the operands
// `a` and `b` and reads them:
//   fn fetch(batch, row0, col0, k0, k_end, li) -> Fetched: this thread's share of the BM × BK tile
//     of op(A) (rows row0.., k k0..) and the BK × BN tile of op(B), zeros past m, n or k_end;
//   fn stage(f: Fetched, li): converts them to f16 (times the operand scales) into a_tile, b_tile;
// both walk the tiles in vectors of OPERAND_WIDTH values along each operand's contiguous axis, as
// a_slot and b_slot place them, so that consecutive threads read consecutive memory.
//
// Threads: SUBGROUP_SIZE · WR · WC in one dimension; subgroup s (invocations s · SUBGROUP_SIZE..)
// owns the (BM / WR) × (BN / WC) outputs at rows (s / WC) · BM / WR, columns (s % WC) · BN / WC of
// the block, as TM × TN result matrices in registers. k advances in tiles of BK = 32 staged in
// workgroup memory as f16, rows padded by 8 values (16 bytes) so that consecutive rows start in
// different banks; the next tile is fetched into registers while the current one is multiplied.
// At the end each subgroup stores one result matrix at a time into its slot of c_tile, and its
// invocations finish and write those elements (bounds, epilogue). Grid (ceil(n / BN),
// ceil(m / BM), batch · nsplit); k_per_split is a multiple of BK.
//! include "gemm_params.wgsl"
@group(0) @binding(3) var<storage, read> bias: array<f32>;  // A again when there is no bias
@group(0) @binding(4) var<storage, read> residual: array<f32>;  // A again when unused
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
//! include "gemm_output.wgsl"

const SM: u32 = SUBGROUP_MATRIX_M;
const SN: u32 = SUBGROUP_MATRIX_N;
const SK: u32 = SUBGROUP_MATRIX_K;
const BK: u32 = 32u;
const THREADS: u32 = SUBGROUP_SIZE * WR * WC;
const TM: u32 = BM / WR / SM;  // result matrices per subgroup, down
const TN: u32 = BN / WC / SN;  // and across
const A_STRIDE: u32 = BK + 8u;
const B_STRIDE: u32 = BN + 8u;

var<workgroup> a_tile: array<f16, BM * A_STRIDE>;  // [row][kk]
var<workgroup> b_tile: array<f16, BK * B_STRIDE>;  // [kk][column]
var<workgroup> c_tile: array<f32, WR * WC * SM * SN>;  // one result matrix per subgroup

// The operand scales of the parameter block: factors for A and B.
fn operand_scales() -> vec2<f32> {
  return unpack2x16float(p.operand_scales);
}

// Where vector e of this thread's share lies in the tile of op(A): (row, k) of its first value.
// Its values run along k when A's rows do (A untransposed), else along the rows.
fn a_slot(e: u32) -> vec2<u32> {
  if (p.trans_a == 0u) {
    return vec2<u32>(e / (BK / OPERAND_WIDTH), (e % (BK / OPERAND_WIDTH)) * OPERAND_WIDTH);
  }
  return vec2<u32>((e % (BM / OPERAND_WIDTH)) * OPERAND_WIDTH, e / (BM / OPERAND_WIDTH));
}

// The same for op(B): (column, k) of its first value; its values run along k when B is stored
// transposed, else along the columns.
fn b_slot(e: u32) -> vec2<u32> {
  if (p.trans_b != 0u) {
    return vec2<u32>(e / (BK / OPERAND_WIDTH), (e % (BK / OPERAND_WIDTH)) * OPERAND_WIDTH);
  }
  return vec2<u32>((e % (BN / OPERAND_WIDTH)) * OPERAND_WIDTH, e / (BN / OPERAND_WIDTH));
}

// Stores value j of a vector staged at slot s of A or B.
fn stage_a(s: vec2<u32>, j: u32, value: f32) {
  if (p.trans_a == 0u) {
    a_tile[s.x * A_STRIDE + s.y + j] = f16(value);
  } else {
    a_tile[(s.x + j) * A_STRIDE + s.y] = f16(value);
  }
}

fn stage_b(s: vec2<u32>, j: u32, value: f32) {
  if (p.trans_b != 0u) {
    b_tile[(s.y + j) * B_STRIDE + s.x] = f16(value);
  } else {
    b_tile[s.y * B_STRIDE + s.x + j] = f16(value);
  }
}

@compute @workgroup_size(THREADS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let split = split_of(wid.z);
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let subgroup = li / SUBGROUP_SIZE;
  let lane = li % SUBGROUP_SIZE;
  let sub_row = (subgroup / WC) * (BM / WR);
  let sub_col = (subgroup % WC) * (BN / WC);
  var acc: array<subgroup_matrix_result<f32, SN, SM>, TM * TN>;
  var next = fetch(split.batch, row0, col0, split.k_begin, split.k_end, li);
  for (var k0 = split.k_begin; k0 < split.k_end; k0 += BK) {
    workgroupBarrier();  // every subgroup is done with the previous tile
    stage(next, li);
    workgroupBarrier();
    next = fetch(split.batch, row0, col0, k0 + BK, split.k_end, li);  // zeros past the end
    for (var kk = 0u; kk < BK; kk += SK) {
      var right: array<subgroup_matrix_right<f16, SN, SK>, TN>;
      for (var j = 0u; j < TN; j++) {
        right[j] = subgroupMatrixLoad<subgroup_matrix_right<f16, SN, SK>>(
            &b_tile, kk * B_STRIDE + sub_col + j * SN, false, B_STRIDE);
      }
      for (var i = 0u; i < TM; i++) {
        let left = subgroupMatrixLoad<subgroup_matrix_left<f16, SK, SM>>(
            &a_tile, (sub_row + i * SM) * A_STRIDE + kk, false, A_STRIDE);
        for (var j = 0u; j < TN; j++) {
          acc[i * TN + j] = subgroupMatrixMultiplyAccumulate(left, right[j], acc[i * TN + j]);
        }
      }
    }
  }
  let slot = subgroup * SM * SN;
  for (var t = 0u; t < TM * TN; t++) {
    workgroupBarrier();  // the slot's previous elements are written out
    subgroupMatrixStore(&c_tile, slot, acc[t], false, SN);
    workgroupBarrier();
    let row = row0 + sub_row + (t / TN) * SM;
    let col = col0 + sub_col + (t % TN) * SN;
    for (var e = lane; e < SM * SN; e += SUBGROUP_SIZE) {
      store_sum(split, row + e / SN, col + e % SN, c_tile[slot + e]);
    }
  }
}
