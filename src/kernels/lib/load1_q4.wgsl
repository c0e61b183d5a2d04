// Element i of OPERAND, q4: blocks of 64 elements in ten words — eight of 4-bit codes (element j
// of a block in bits 4·(j % 8) of word j / 8), then the block's scale and minimum as f32 bits;
// element = code · scale + min. The includer declares `OPERAND: array<OPERAND_word>`.
alias OPERAND_word = u32;

fn OPERAND_at(i: u32) -> f32 {
  let block = i / 64u * 10u;
  let j = i % 64u;
  let code = (OPERAND[block + j / 8u] >> (4u * (j % 8u))) & 15u;
  return f32(code) * bitcast<f32>(OPERAND[block + 8u]) + bitcast<f32>(OPERAND[block + 9u]);
}

// Element (row, col) of a [k, n] OPERAND in column strips (wgpt::Layout): the code words in strips
// of 8 columns, each strip's k rows one after another (a word per strip row), then the blocks'
// (scale, minimum) pairs by block column and row.
fn OPERAND_strip_at(row: u32, col: u32, k: u32, n: u32) -> f32 {
  let code = (OPERAND[(col / 8u) * k + row] >> (4u * (col % 8u))) & 15u;
  let pair = k * n / 8u + 2u * ((col / 64u) * k + row);
  return f32(code) * bitcast<f32>(OPERAND[pair]) + bitcast<f32>(OPERAND[pair + 1u]);
}
