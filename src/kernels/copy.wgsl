// dst[i] = src[shift + i]: copies a tensor view whose offset the device cannot bind, from the
// aligned offset just below it. Moved as u32 words so any bit pattern (u32 ids, NaNs) survives.
struct Params {
  n: u32,
  shift: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  dst[i] = src[p.shift + i];
}
