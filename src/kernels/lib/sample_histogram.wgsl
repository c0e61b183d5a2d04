// Shared by the sampling kernels that write a pass's histogram (sample_prepare, sample_select) or
// settle it (sample_select, sample_draw): one pass of the radix search's histogram
// (lib/sample_search.wgsl) over a slice — the count of the slice's rank keys still in play with
// each value of digit `level`, and for top-p their fixed-point mass — added into the pass's
// histogram of the whole vocabulary, `histograms` [pass, 256, 3] (count, mass bits 0–20, mass
// bits 21 and up), which sample_pick zeroes for the next step. The mass goes in two limbs so that
// the adds need no carry (nothing waits for an atomic's old value): a slice's bin holds less than
// 2⁴¹, so across 256 slices the low limb stays below 2²⁹ and the high one below 2²⁸.
// Thread layout: one workgroup of 256 threads per slice of 1024 logits (ids slice_start + t +
// 256·j). A thread adds its run of equal digits to the workgroup's bins at once (its ids are 256
// apart, and near the top digits most keys share one), so same-bin atomics stay few.
// The includer declares `z` and `histograms` (array<atomic<u32>>), and includes sample_cut.wgsl.

const MASS_LOW_BITS: u32 = 21u;
const MASS_LOW_MASK: u32 = 0x1fffffu;

var<workgroup> bin_count: array<atomic<u32>, 256>;
var<workgroup> bin_low: array<atomic<u32>, 256>;
var<workgroup> bin_high: array<atomic<u32>, 256>;

fn add_run(digit: u32, count: u32, mass: vec2<u32>, with_mass: bool) {
  if (count == 0u) {
    return;
  }
  atomicAdd(&bin_count[digit], count);
  if (with_mass) {
    let old = atomicAdd(&bin_low[digit], mass.x);
    atomicAdd(&bin_high[digit], mass.y + select(0u, 1u, old + mass.x < old));
  }
}

// The histogram of digit `level` of slice `group`'s keys in play for search `s` of `kind` (keys
// with its prefix, at or above its cut); `largest` z weighs the mass.
fn histogram_slice(local: u32, group: u32, vocab: u32, s: Search, kind: u32, level: u32,
                   largest: f32, pass_index: u32) {
  atomicStore(&bin_count[local], 0u);
  atomicStore(&bin_low[local], 0u);
  atomicStore(&bin_high[local], 0u);
  workgroupBarrier();
  let with_mass = kind == SEARCH_MASS;
  let mask = prefix_mask(level);
  var run_digit = 0u;
  var run_count = 0u;
  var run_mass = vec2<u32>(0u, 0u);
  let start = group * SLICE;
  for (var j = 0u; j < PER_THREAD; j++) {
    let i = start + local + 256u * j;
    if (i < vocab) {
      let key = rank_key(z[i]);
      if ((key & mask) == s.prefix && key >= s.cut_key) {
        let digit = digit_of(key, level);
        if (digit != run_digit) {
          add_run(run_digit, run_count, run_mass, with_mass);
          run_digit = digit;
          run_count = 0u;
          run_mass = vec2<u32>(0u, 0u);
        }
        run_count++;
        if (with_mass) {
          run_mass = add64(run_mass, vec2<u32>(fixed_weight(z[i], largest), 0u));
        }
      }
    }
  }
  add_run(run_digit, run_count, run_mass, with_mass);
  workgroupBarrier();
  let count = atomicLoad(&bin_count[local]);
  if (count == 0u) {
    return;
  }
  let at = (pass_index * 256u + local) * 3u;
  atomicAdd(&histograms[at], count);
  if (with_mass) {
    let low = atomicLoad(&bin_low[local]);
    let high = atomicLoad(&bin_high[local]);
    atomicAdd(&histograms[at + 1u], low & MASS_LOW_MASK);
    atomicAdd(&histograms[at + 2u], (low >> MASS_LOW_BITS) | (high << (32u - MASS_LOW_BITS)));
  }
}

// What bin `digit` of pass `pass_index`'s histogram holds, once every slice has added into it: the
// count and, for top-p (`with_mass`), the mass, its two limbs put together.
struct Bin {
  count: u32,
  mass: vec2<u32>,
}

fn histogram_bin(pass_index: u32, digit: u32, with_mass: bool) -> Bin {
  let at = (pass_index * 256u + digit) * 3u;
  var bin = Bin(atomicLoad(&histograms[at]), vec2<u32>(0u, 0u));
  if (with_mass) {
    let high = atomicLoad(&histograms[at + 2u]);
    bin.mass = add64(vec2<u32>(atomicLoad(&histograms[at + 1u]), 0u),
                     vec2<u32>(high << MASS_LOW_BITS, high >> (32u - MASS_LOW_BITS)));
  }
  return bin;
}
