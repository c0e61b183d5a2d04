// Column sums of x [rows, cols] over one block of rows per workgroup row:
// out[block, col] = Σ x[row, col] for row in [block · rows_per_block, (block + 1) · rows_per_block).
// One thread per column (consecutive threads read consecutive columns: coalesced); grid
// (ceil(cols / 256), blocks). The host repeats it on the block sums until one row is left, so
// every sum runs in the same fixed order.
struct Params {
  rows: u32,
  cols: u32,
  rows_per_block: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let col = wid.x * 256u + lid;
  if (col >= p.cols) {
    return;
  }
  let first = wid.y * p.rows_per_block;
  let last = min(first + p.rows_per_block, p.rows);
  var sum = 0.0;
  for (var row = first; row < last; row++) {
    sum += x[row * p.cols + col];
  }
  out[wid.y * p.cols + col] = sum;
}
