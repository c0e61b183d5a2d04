// Shared by the sampling kernels after sample_prepare: a search for a cut as the passes store it
// in `searches` (12 words per slot), and the largest z from the slices' best. The includer
// declares `searches`, `best` [workgroups, 2] (key, id) and `params` with a `groups` field.

//! include "sample_common.wgsl"

const ALL: u32 = 0xffffffffu;

struct Search {
  prefix: u32,            // the digits chosen so far, in place; the others 0
  need: vec2<u32>,        // what the search still needs below the prefix: a count or a mass
  above_count: u32,       // kept above the prefix's digits
  above_mass: vec2<u32>,
  cut_key: u32,           // the finished cut: tokens with a larger key are kept,
  cut_kept: u32,          // and this many of those with this key, lowest ids first (ALL: every one)
  cut_ties: u32,          // how many tokens have the cut's key
}

var<workgroup> largest_key: atomic<u32>;

// The largest z: the best of the slices' best.
fn largest_z(local: u32) -> f32 {
  if (local == 0u) {
    atomicStore(&largest_key, 0u);
  }
  workgroupBarrier();
  for (var g = local; g < params.groups; g += 256u) {
    atomicMax(&largest_key, best[g * 2u]);
  }
  workgroupBarrier();
  return key_value(atomicLoad(&largest_key));
}

fn load_search(slot: u32) -> Search {
  let at = slot * 12u;
  return Search(searches[at], vec2<u32>(searches[at + 1u], searches[at + 2u]), searches[at + 3u],
                vec2<u32>(searches[at + 4u], searches[at + 5u]), searches[at + 6u],
                searches[at + 7u], searches[at + 8u]);
}

fn store_search(slot: u32, s: Search) {
  let at = slot * 12u;
  searches[at] = s.prefix;
  searches[at + 1u] = s.need.x;
  searches[at + 2u] = s.need.y;
  searches[at + 3u] = s.above_count;
  searches[at + 4u] = s.above_mass.x;
  searches[at + 5u] = s.above_mass.y;
  searches[at + 6u] = s.cut_key;
  searches[at + 7u] = s.cut_kept;
  searches[at + 8u] = s.cut_ties;
}

