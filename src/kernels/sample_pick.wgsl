// Sampling, last kernel (include/wgpt/sampling.h step 9, or greedy decoding): chooses the token
// and writes it into the step state [position, token] with the position advanced, and into
// `sequence` at that position (the penalties' window), so the next step needs nothing from the
// host.
// Greedy: the best of the slices' best (largest rank key, lowest id on ties).
// Sampled: the slices' kept masses (sample_draw's [workgroups, 3]: ties at the cut, mass above
// it) give each slice its share — its ties are kept while the ties of lower slices have not used
// up the cut's `cut_kept` — then the draw r = counter_word(key, step[0] + 1) lands at
// ⌊r · Q / 2³²⌋ of their total Q; the slice it lands in is walked in id order, each thread over a
// contiguous run of 4 ids, to the first token whose running mass exceeds it.
// Last of a sampled step's kernels, it zeroes the passes' histograms for the next step's
// (lib/sample_histogram.wgsl: each slice adds into them; greedy decoding has none).
// Thread layout: one workgroup of 256 threads; at most 256 slices (a vocabulary of 2¹⁸).
struct Params {
  vocab: u32,
  groups: u32,
  greedy: u32,
  key_lo: u32,
  key_hi: u32,
  min_p: f32,
  slot: u32,  // the settled cut (sample_draw's), with the largest z
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read> best: array<u32>;
@group(0) @binding(3) var<storage, read> kept: array<u32>;
@group(0) @binding(4) var<storage, read_write> searches: array<u32>;
@group(0) @binding(5) var<storage, read_write> step: array<u32>;
@group(0) @binding(6) var<storage, read_write> sequence: array<u32>;
@group(0) @binding(7) var<storage, read_write> histograms: array<u32>;

//! include "sample_cut.wgsl"
//! include "workgroup_scan.wgsl"
//! include "counter_hash.wgsl"

struct Landing {
  slice: u32,
  rest: vec2<u32>,  // the draw's offset into the slice's kept mass
  ties_before: u32,  // tokens at the cut's key in lower slices
}

var<workgroup> landing: Landing;
var<workgroup> chosen: u32;

fn greedy_token(local: u32) -> u32 {
  var key = 0u;
  var id = ALL;
  for (var g = local; g < params.groups; g += 256u) {
    if (better(key, id, best[g * 2u], best[g * 2u + 1u])) {
      key = best[g * 2u];
      id = best[g * 2u + 1u];
    }
  }
  return best_of_workgroup(local, key, id).y;
}

// The slice the draw lands in, from the slices' kept masses.
fn land(local: u32, s: Search, q_cut: u32) {
  var ties = 0u;
  var mass = vec2<u32>(0u, 0u);
  if (local < params.groups) {
    ties = kept[local * 3u];
    mass = vec2<u32>(kept[local * 3u + 1u], kept[local * 3u + 2u]);
  }
  let tie_sums = workgroup_scan(local, ties, vec2<u32>(0u, 0u));
  let ties_before = tie_sums.count - ties;
  let kept_ties = select(min(s.cut_kept - ties_before, ties), 0u, s.cut_kept <= ties_before);
  let slice_mass = add64(mass, mul64(kept_ties, q_cut));
  let sums = workgroup_scan(local, 0u, slice_mass);
  let r = counter_word(params.key_lo, params.key_hi, step[0] + 1u);
  let goal = draw_target(r, sums.total_mass);
  let before = sub64(sums.mass, slice_mass);
  if (local < params.groups && !less64(goal, before) && less64(goal, sums.mass)) {
    landing = Landing(local, sub64(goal, before), ties_before);
  }
  workgroupBarrier();
}

// The kept weight of a token of rank key `key` and value z; `tie_rank` counts the tokens at the
// cut's key before it.
fn kept_weight(z_value: f32, key: u32, tie_rank: u32, s: Search, largest: f32) -> u32 {
  let passes = key >= s.cut_key && exp(z_value - largest) >= params.min_p;
  if (!passes || (key == s.cut_key && tie_rank >= s.cut_kept)) {
    return 0u;
  }
  return fixed_weight(z_value, largest);
}

fn drawn_token(local: u32) -> u32 {
  // Each is set by the one thread whose range holds the draw, if any thread's does. Workgroup
  // memory is not zeroed on a device without WebGPU's checks (WGPT_KERNEL_CHECKS=0), so both are
  // cleared first, before land's barriers: with no such thread the token is 0, never garbage.
  if (local == 0u) {
    landing = Landing();
    chosen = 0u;
  }
  let largest = load_largest(params.slot);
  let s = load_search(params.slot);
  land(local, s, fixed_weight(key_value(s.cut_key), largest));
  let at = landing;
  // This thread's run of the slice, read once: up to 4 ids (fewer at the vocabulary's end).
  let first = at.slice * SLICE + local * PER_THREAD;
  let length = select(0u, min(PER_THREAD, params.vocab - first), first < params.vocab);
  var values: array<f32, PER_THREAD>;
  var ties = 0u;
  for (var j = 0u; j < PER_THREAD; j++) {
    if (j < length) {
      values[j] = z[first + j];
      ties += select(0u, 1u, rank_key(values[j]) == s.cut_key &&
                                 exp(values[j] - largest) >= params.min_p);
    }
  }
  let tie_sums = workgroup_scan(local, ties, vec2<u32>(0u, 0u));
  let first_rank = at.ties_before + tie_sums.count - ties;  // of this thread's first tie
  var weights: array<u32, PER_THREAD>;
  var tie_rank = first_rank;
  var mass = vec2<u32>(0u, 0u);
  for (var j = 0u; j < PER_THREAD; j++) {
    weights[j] = 0u;
    if (j < length) {
      let key = rank_key(values[j]);
      weights[j] = kept_weight(values[j], key, tie_rank, s, largest);
      mass = add64(mass, vec2<u32>(weights[j], 0u));
      tie_rank += select(0u, 1u, key == s.cut_key && exp(values[j] - largest) >= params.min_p);
    }
  }
  let sums = workgroup_scan(local, 0u, mass);
  var running = sub64(sums.mass, mass);
  if (!less64(at.rest, running) && less64(at.rest, sums.mass)) {
    for (var j = 0u; j < PER_THREAD; j++) {
      running = add64(running, vec2<u32>(weights[j], 0u));
      if (less64(at.rest, running)) {
        chosen = first + j;
        break;
      }
    }
  }
  workgroupBarrier();
  return chosen;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32) {
  var token: u32;
  if (params.greedy != 0u) {
    token = greedy_token(local);
  } else {
    token = drawn_token(local);
    for (var i = local; i < arrayLength(&histograms); i += 256u) {
      histograms[i] = 0u;
    }
  }
  if (local == 0u) {
    let position = step[0] + 1u;
    step[0] = position;
    step[1] = token;
    if (position < arrayLength(&sequence)) {
      sequence[position] = token;
    }
  }
}
