// lib/decode_gemv.wgsl's unit of k for weights that load8_*.wgsl reads eight columns at a time
// (f32, f16, bf16): one row, its eight columns as two vec4s, times the row's input element.
const UNIT_ROWS: u32 = 1u;
alias weight_unit = mat2x4<f32>;
alias unit_input = f32;

fn weight_unit_at(unit: u32, column8: u32, k: u32, n8: u32, strips: bool) -> weight_unit {
  return weight_matrix_at8(unit, column8, k, n8, strips);
}

fn unit_input_at(unit: u32) -> unit_input {
  return gemv_input(unit);
}

fn unit_product(w: weight_unit, input: unit_input) -> mat2x4<f32> {
  return input * w;
}
