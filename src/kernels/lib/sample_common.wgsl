// Shared by the sampling kernels (sample_*.wgsl): the pieces of include/wgpt/sampling.h's
// definition that src/model/sampling_terms.h computes on the host — a logit's rank key, its
// fixed-point weight — and 64-bit sums of weights as vec2<u32> (low word, high word).

// The slice passes give each workgroup 1024 logits: 256 threads × 4, thread t taking ids
// slice_start + t + 256·j (coalesced). Every sum is of exact integers, so the slice size changes
// no result, only the time: on an H200, 1024 (GPT-2's vocabulary in 50 workgroups, each thread's
// chain of dependent loads and exponentials a quarter as long as with 4096) took top-k 40 from
// 0.742 to 0.725 ms per GPT-2 124M token, 2048 to 0.727.
const SLICE: u32 = 1024u;
const PER_THREAD: u32 = 4u;

// The order-preserving u32 of a float: a larger float has a larger key (−0 below +0).
fn rank_key(z: f32) -> u32 {
  let bits = bitcast<u32>(z);
  return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

fn key_value(key: u32) -> f32 {
  return bitcast<f32>(select(~key, key & 0x7fffffffu, (key & 0x80000000u) != 0u));
}

// ⌊exp(z − largest) · 2³¹⌋: a weight in [0, 1] as an exact integer.
fn fixed_weight(z: f32, largest: f32) -> u32 {
  return u32(exp(z - largest) * 2147483648.0);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let low = a.x + b.x;
  return vec2<u32>(low, a.y + b.y + select(0u, 1u, low < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn less64(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}

// The full 64-bit product of two u32, from 16-bit halves.
fn mul64(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let low = a0 * b0;
  let middle1 = a1 * b0;
  let middle2 = a0 * b1;
  var result = vec2<u32>(low, a1 * b1);
  result = add64(result, vec2<u32>(middle1 << 16u, middle1 >> 16u));
  return add64(result, vec2<u32>(middle2 << 16u, middle2 >> 16u));
}

// f32(x) for a sum of weights: f32(x_hi) · 2³² ⊕ f32(x_lo) (the product is exact).
fn sum_as_float(x: vec2<u32>) -> f32 {
  return f32(x.y) * 4294967296.0 + f32(x.x);
}

// ⌈p ⊗ f32(total)⌉: the mass a top-p prefix must reach.
fn nucleus_target(p: f32, total: vec2<u32>) -> vec2<u32> {
  let goal = p * sum_as_float(total);
  let high = floor(goal * (1.0 / 4294967296.0));
  let rest = goal - high * 4294967296.0;  // exact: the bits of goal below 2³²
  return vec2<u32>(u32(ceil(rest)), u32(high));
}

// ⌊r · total / 2³²⌋: where the draw r lands in a total of weights.
fn draw_target(r: u32, total: vec2<u32>) -> vec2<u32> {
  return add64(mul64(r, total.y), vec2<u32>(mul64(r, total.x).y, 0u));
}

// The best of one (rank key, id) candidate per thread across the workgroup: the largest key, the
// lowest id on ties; id 0xffffffff marks a thread without one. Every thread gets the result.
var<workgroup> best_keys: array<u32, 256>;
var<workgroup> best_ids: array<u32, 256>;

fn better(key: u32, id: u32, other_key: u32, other_id: u32) -> bool {
  return other_id != 0xffffffffu &&
         (id == 0xffffffffu || other_key > key || (other_key == key && other_id < id));
}

fn best_of_workgroup(local: u32, key: u32, id: u32) -> vec2<u32> {
  workgroupBarrier();  // every thread has read the previous result
  best_keys[local] = key;
  best_ids[local] = id;
  for (var stride = 128u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride &&
        better(best_keys[local], best_ids[local], best_keys[local + stride],
               best_ids[local + stride])) {
      best_keys[local] = best_keys[local + stride];
      best_ids[local] = best_ids[local + stride];
    }
  }
  workgroupBarrier();
  return vec2<u32>(best_keys[0], best_ids[0]);
}
