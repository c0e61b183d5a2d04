// Shared by sample_select.wgsl and sample_draw.wgsl: the radix search for the cut of top-k (by
// count) and top-p (by mass), one 8-bit digit of the rank key per pass, top digit first.
//
// A pass histograms the digit of the keys still in play (those with the digits chosen so far and,
// for top-p, within top-k's cut), each slice adding into the pass's histogram (`histograms`,
// lib/sample_histogram.wgsl). The next pass settles it — every workgroup the same way, from the
// same numbers: it walks the digits from the highest down to the one where the running count (or
// mass) reaches what the search still needs; the ranks above it are kept. After the fourth digit
// the key of the cut is known, and how many of the tokens with exactly that key are kept (the
// lowest ids first). Workgroup 0 stores each settled search in its slot of `searches` (12 words)
// for the pass after it.
//
// The includer declares `params` (SearchParams), `best` (the slices' best: (key, id) pairs),
// `histograms` and `searches`, and includes sample_histogram.wgsl.

//! include "sample_cut.wgsl"
//! include "workgroup_scan.wgsl"

struct SearchParams {
  vocab: u32,
  groups: u32,
  settle_kind: u32,   // the search the previous pass histogrammed (NONE: none did)
  settle_level: u32,  // its digit, 0 (the top 8 bits) to 3
  kind: u32,          // the search this pass histograms (NONE for the draw)
  level: u32,
  top_k: u32,
  top_p: f32,
  min_p: f32,
  settle_slot: u32,  // where the previous pass stored its search (and its histogram)
  slot: u32,         // where this pass stores the settled one (and its histogram)
  largest_in_slot: u32,  // 1: the previous pass stored the largest z with its search
}

var<workgroup> settled: Search;

// The fewest of `ties` tokens of weight q whose mass reaches `need` (≤ ties · q).
fn ties_for_mass(need: vec2<u32>, q: u32, ties: u32) -> u32 {
  var low = 1u;
  var high = ties;
  while (low < high) {
    let middle = (low + high) / 2u;
    if (less64(mul64(middle, q), need)) {
      low = middle + 1u;
    } else {
      high = middle;
    }
  }
  return low;
}

// The previous pass's histogram, merged and settled: the search with one more digit chosen, or
// after its last digit, the finished cut with the next search started. Same in every workgroup.
fn settle(local: u32, largest: f32) -> Search {
  if (params.settle_kind == SEARCH_NONE) {
    return first_search(params.kind, params.top_k);
  }
  var s = load_search(params.settle_slot);
  let level = params.settle_level;
  let mass_search = params.settle_kind == SEARCH_MASS;
  let digit = 255u - local;  // thread order is rank order: the highest digit first
  // One round trip: the slices added their histograms into one (merging 50 slices' here took four).
  let bin = histogram_bin(params.settle_slot, digit, mass_search);
  var count = bin.count;
  var mass = bin.mass;
  // Top-p within top-k: of the tokens with top-k's cut key, only cut_kept are in play.
  if (mass_search && s.cut_kept < s.cut_ties && (s.cut_key & prefix_mask(level)) == s.prefix &&
      digit_of(s.cut_key, level) == digit) {
    let excess = s.cut_ties - s.cut_kept;
    count -= excess;
    mass = sub64(mass, mul64(excess, fixed_weight(key_value(s.cut_key), largest)));
  }
  // `settled` is set by the one thread whose digit the need crosses, if any digit's does.
  // Workgroup memory is not zeroed on a device without WebGPU's checks (WGPT_KERNEL_CHECKS=0), so
  // it is cleared first, before workgroup_scan's barriers: with no such digit it reads as zeros.
  if (local == 0u) {
    settled = Search();
  }
  let sums = workgroup_scan(local, count, mass);
  var need = s.need;
  if (mass_search && level == 0u) {
    need = nucleus_target(params.top_p, sums.total_mass);
  }
  let before_count = sums.count - count;
  let before_mass = sub64(sums.mass, mass);
  var crosses: bool;
  if (mass_search) {
    crosses = less64(before_mass, need) && !less64(sums.mass, need);
  } else {
    crosses = before_count < need.x && need.x <= sums.count;
  }
  if (crosses) {
    settled = s;
    settled.prefix = s.prefix | (digit << (24u - 8u * level));
    settled.need = select(vec2<u32>(need.x - before_count, 0u), sub64(need, before_mass),
                          mass_search);
    settled.above_count = s.above_count + before_count;
    settled.above_mass = add64(s.above_mass, before_mass);
    if (level == 3u) {
      settled.cut_key = settled.prefix;
      settled.cut_ties = count;
      settled.cut_kept = settled.need.x;
      if (mass_search) {
        settled.cut_kept = ties_for_mass(settled.need,
                                         fixed_weight(key_value(settled.prefix), largest), count);
      }
    }
  }
  workgroupBarrier();
  s = settled;
  if (level == 3u) {
    s = fresh_search(params.kind, params.top_k, s);
  }
  return s;
}

struct Settled {
  search: Search,
  largest: f32,
}

// A pass's opening: the largest z (for weights: not needed by top-k's passes; from the previous
// pass's slot once a pass has found it), and the previous pass's histogram settled and stored (by
// workgroup 0) for the next pass, with the largest z.
fn settle_pass(local: u32, group: u32) -> Settled {
  var largest = 0.0;
  if (params.largest_in_slot != 0u) {
    largest = load_largest(params.settle_slot);
  } else if (params.kind != SEARCH_COUNT || params.settle_kind == SEARCH_MASS) {
    largest = largest_z(local);
  }
  let s = settle(local, largest);
  if (group == 0u && local == 0u) {
    store_search(params.slot, s);
    store_largest(params.slot, largest);
  }
  return Settled(s, largest);
}
