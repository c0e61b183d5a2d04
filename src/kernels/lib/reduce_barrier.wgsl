// Workgroup reductions with barriers and workgroup memory: the REDUCE=barrier form of the reduce_*
// family, for adapters without subgroups (llvmpipe, the browser). reduce_subgroup.wgsl offers the
// same functions with subgroup operations. The includer defines `const REDUCE_THREADS: u32` (its
// workgroup size, a power of two up to 256), takes `invocation: Invocation` in its entry point
// and calls reduce_begin(invocation) first, in uniform control flow; then `worker` (0 ..
// REDUCE_THREADS − 1, a permutation of the local index) is the thread's role, and every reduction
// is called by every thread.
// Each reduction starts with a barrier (the previous result has been read) and returns a value
// read after its last barrier: llvmpipe miscompiles a workgroup-memory read that is followed by a
// barrier before its use.

//! include "best_order.wgsl"

struct Invocation {
  @builtin(local_invocation_index) local: u32,
}

var<private> worker: u32;
var<workgroup> reduce_scratch: array<vec4<f32>, REDUCE_THREADS>;

fn reduce_begin(invocation: Invocation) {
  worker = invocation.local;
}

// Σ of v over the workgroup, in every thread; `take_max` for the maximum instead.
fn reduce_all(v: f32, take_max: bool) -> f32 {
  workgroupBarrier();
  reduce_scratch[worker].x = v;
  for (var stride = REDUCE_THREADS / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (worker < stride) {
      let other = reduce_scratch[worker + stride].x;
      let mine = reduce_scratch[worker].x;
      reduce_scratch[worker].x = select(mine + other, max(mine, other), take_max);
    }
  }
  workgroupBarrier();
  return reduce_scratch[0].x;
}

fn workgroup_sum(v: f32) -> f32 {
  return reduce_all(v, false);
}

fn workgroup_max(v: f32) -> f32 {
  return reduce_all(v, true);
}

// Σ of v over the workgroup (two sums at once), in every thread.
fn workgroup_sum2(v: vec2<f32>) -> vec2<f32> {
  return slices_sum(vec4<f32>(v, 0.0, 0.0), 1u).xy;
}

// Σ of v over the threads whose worker % tx is this thread's (the "slices" of a column set, tx a
// power of two dividing REDUCE_THREADS); the result is valid in the threads with worker < tx.
fn slices_sum(v: vec4<f32>, tx: u32) -> vec4<f32> {
  workgroupBarrier();
  reduce_scratch[worker] = v;
  for (var stride = REDUCE_THREADS / 2u; stride >= tx; stride /= 2u) {
    workgroupBarrier();
    if (worker < stride) {
      reduce_scratch[worker] += reduce_scratch[worker + stride];
    }
  }
  workgroupBarrier();
  return reduce_scratch[worker % tx];
}

// slices_sum of both halves of eight columns.
fn slices_sum8(v: mat2x4<f32>, tx: u32) -> mat2x4<f32> {
  return mat2x4<f32>(slices_sum(v[0], tx), slices_sum(v[1], tx));
}

// Σ of v over the eight threads 8r .. 8r + 7 (by worker) this thread is one of, in all eight.
fn octet_sum(v: f32) -> f32 {
  workgroupBarrier();
  reduce_scratch[worker].x = v;
  for (var stride = 4u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (worker % 8u < stride) {
      reduce_scratch[worker].x += reduce_scratch[worker + stride].x;
    }
  }
  workgroupBarrier();
  return reduce_scratch[worker / 8u * 8u].x;
}

// The best (value, index) over one candidate per thread: the largest value, the lowest index on
// ties (as HF's greedy choice); index 0xffffffff marks a thread without one. Every thread gets
// (value bits, index).
fn workgroup_best(value: f32, index: u32) -> vec2<u32> {
  workgroupBarrier();
  reduce_scratch[worker] = vec4<f32>(value, bitcast<f32>(index), 0.0, 0.0);
  for (var stride = REDUCE_THREADS / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (worker < stride) {
      let other = reduce_scratch[worker + stride];
      let mine = reduce_scratch[worker];
      if (better(other.x, bitcast<u32>(other.y), mine.x, bitcast<u32>(mine.y))) {
        reduce_scratch[worker] = other;
      }
    }
  }
  workgroupBarrier();
  return vec2<u32>(bitcast<u32>(reduce_scratch[0].x), bitcast<u32>(reduce_scratch[0].y));
}

