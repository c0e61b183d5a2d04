// lib/decode_gemv.wgsl's unit of k for q4 weights: four consecutive rows. In column strips a
// thread then reads its eight columns' codes of the four rows as one vec4<u32> and the rows'
// (scale, minimum) pairs as two: 3 loads for four rows, where a row at a time took 8 (each row's
// code word, then its pair) and f16 takes 4. A decode product's time is a chain of load latencies
// and the loads each thread issues (lib/decode_gemv.wgsl): on an H100 this took GPT-2 124M's q4
// decoding from 0.925× f16's speed to 1.02×, gpt2-medium's from 0.94× to 1.05× (batches of 16
// rows instead of 8 were slower again: docs/benchmarks.md, the twenty-third session).
// The layouts are load8_q4.wgsl's, read as vec4<u32> words: ops::decode requires k to be a
// multiple of 4, and a GPU tensor's q4 words are padded to a multiple of four (Tensor::to_gpu).
// A row's contribution is scale · (input · codes) + min · input: 8 fmas on the codes and one for
// the minimum, which all eight columns share.
alias weight_word = vec4<u32>;
const UNIT_ROWS: u32 = 4u;

struct Q4Rows {
  codes: vec4<u32>,         // row r's eight 4-bit codes in codes[r]
  scale_min_01: vec4<u32>,  // rows 0 and 1's (scale, minimum) as f32 bits
  scale_min_23: vec4<u32>,
}

alias weight_unit = Q4Rows;
alias unit_input = vec4<f32>;

// Word `index` (in u32s) of the matrix.
fn weight_u32(index: u32) -> u32 {
  return weight[index / 4u][index % 4u];
}

// Rows 4·unit .. 4·unit + 3 of columns 8·column8 .. 8·column8 + 7: in strips, the strip's code
// words of consecutive rows are consecutive, and so are the pairs of a block column's rows;
// row-major, each row's code word and pair are gathered on their own (blocks of 64 elements, ten
// u32s: eight of codes, then the pair).
fn weight_unit_at(unit: u32, column8: u32, k: u32, n8: u32, strips: bool) -> weight_unit {
  if (strips) {
    let pairs = k * n8 / 4u + (column8 / 8u) * (k / 2u) + 2u * unit;
    return Q4Rows(weight[(column8 * k) / 4u + unit], weight[pairs], weight[pairs + 1u]);
  }
  var codes: vec4<u32>;
  var pairs: array<vec2<u32>, 4>;
  for (var r = 0u; r < 4u; r++) {
    let i8 = (4u * unit + r) * n8 + column8;
    codes[r] = weight_u32((i8 / 8u) * 10u + i8 % 8u);
    let pair = (i8 / 8u) * 10u + 8u;
    pairs[r] = vec2<u32>(weight_u32(pair), weight_u32(pair + 1u));
  }
  return Q4Rows(codes, vec4<u32>(pairs[0], pairs[1]), vec4<u32>(pairs[2], pairs[3]));
}

fn unit_input_at(unit: u32) -> unit_input {
  let row = 4u * unit;
  return vec4<f32>(gemv_input(row), gemv_input(row + 1u), gemv_input(row + 2u),
                   gemv_input(row + 3u));
}

// One row's eight codes times `a` (its input times its scale).
fn codes_times(codes: u32, a: f32) -> mat2x4<f32> {
  let lo = vec4<u32>(codes, codes >> 4u, codes >> 8u, codes >> 12u) & vec4<u32>(15u);
  let hi = vec4<u32>(codes >> 16u, codes >> 20u, codes >> 24u, codes >> 28u) & vec4<u32>(15u);
  return mat2x4<f32>(a * vec4<f32>(lo), a * vec4<f32>(hi));
}

fn unit_product(w: weight_unit, input: unit_input) -> mat2x4<f32> {
  let p0 = bitcast<vec2<f32>>(w.scale_min_01.xy);
  let p1 = bitcast<vec2<f32>>(w.scale_min_01.zw);
  let p2 = bitcast<vec2<f32>>(w.scale_min_23.xy);
  let p3 = bitcast<vec2<f32>>(w.scale_min_23.zw);
  let sum = codes_times(w.codes.x, input.x * p0.x) + codes_times(w.codes.y, input.y * p1.x) +
            codes_times(w.codes.z, input.z * p2.x) + codes_times(w.codes.w, input.w * p3.x);
  let offset = dot(input, vec4<f32>(p0.y, p1.y, p2.y, p3.y));
  return sum + mat2x4<f32>(vec4<f32>(offset), vec4<f32>(offset));
}
