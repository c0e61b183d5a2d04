// Shared by decode_attention_output.wgsl and decode_mlp_down.wgsl: the product of lib/decode_gemv
// added with its bias into the residual stream in place, x += input · W + b. Each column of x is
// read and written by one thread only, so updating in place is safe. The includer declares
// `params` (k, n8, tx), `bias` and `x` (array<vec4<f32>>), includes decode_gemv.wgsl, and defines
// `fn stage_input()`, which every thread calls to prepare what gemv_input reads and which
// publishes what it writes (a barrier); it may do nothing, as the MLP's, which reads memory.

fn add_gemv_to_residual(group: u32) {
  let role = gemv_role(group, params.tx);
  gemv_prefetch(role, params.k, params.n8, params.strips != 0u);
  add_prefetched_gemv_to_residual(role);
}

// add_gemv_to_residual after its gemv_prefetch (for an includer with work between them).
fn add_prefetched_gemv_to_residual(role: GemvRole) {
  // The epilogue's inputs are loaded now too, so that their latency overlaps the product's.
  let at = min(role.column8, params.n8 - 1u) * 2u;
  let bias_lo = bias[at];
  let bias_hi = bias[at + 1u];
  let x_lo = x[at];
  let x_hi = x[at + 1u];
  stage_input();
  let sums = gemv_columns(role, params.k, params.n8, params.tx, params.strips != 0u);
  if (worker < params.tx && role.column8 < params.n8) {
    x[at] = x_lo + sums[0] + bias_lo;
    x[at + 1u] = x_hi + sums[1] + bias_hi;
  }
}
