// out[i] = in[i] * 2 + offset — a kernel whose result `wgpt info` checks on the host.
struct Params {
  n: u32,
  offset: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < params.n) {
    output[id.x] = input[id.x] * 2.0 + params.offset;
  }
}
