// Shared by the sampling kernels: a search for a cut as the passes store it in `searches` (12
// words per slot), its digits, and the largest z from the slices' best. The includer declares
// `searches`, `best` [workgroups, 2] (key, id) and `params` with a `groups` field.

//! include "sample_common.wgsl"

const ALL: u32 = 0xffffffffu;

const SEARCH_NONE: u32 = 0u;
const SEARCH_COUNT: u32 = 1u;  // top-k
const SEARCH_MASS: u32 = 2u;   // top-p

struct Search {
  prefix: u32,            // the digits chosen so far, in place; the others 0
  need: vec2<u32>,        // what the search still needs below the prefix: a count or a mass
  above_count: u32,       // kept above the prefix's digits
  above_mass: vec2<u32>,
  cut_key: u32,           // the finished cut: tokens with a larger key are kept,
  cut_kept: u32,          // and this many of those with this key, lowest ids first (ALL: every one)
  cut_ties: u32,          // how many tokens have the cut's key
}

// A new search of `kind` after the finished cut `cut` (whose cut_* fields it keeps): no digit
// chosen yet; a count search needs top_k tokens (a mass search's need is set by its first digit).
fn fresh_search(kind: u32, top_k: u32, cut: Search) -> Search {
  var s = cut;
  s.prefix = 0u;
  s.need = vec2<u32>(select(0u, top_k, kind == SEARCH_COUNT), 0u);
  s.above_count = 0u;
  s.above_mass = vec2<u32>(0u, 0u);
  return s;
}

// A step's first search: no cut before it, every token in play.
fn first_search(kind: u32, top_k: u32) -> Search {
  return fresh_search(kind, top_k,
                      Search(0u, vec2<u32>(0u, 0u), 0u, vec2<u32>(0u, 0u), 0u, ALL, 0u));
}

// The top bits of a key chosen before digit `level`.
fn prefix_mask(level: u32) -> u32 {
  return select(0u, 0xffffffffu << (32u - 8u * level), level > 0u);
}

fn digit_of(key: u32, level: u32) -> u32 {
  return (key >> (24u - 8u * level)) & 255u;
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

// A slot's word 9: the largest z, which the pass that stored the search had (the passes after the
// first that needed it read it there rather than from every slice's best).
const LARGEST_WORD: u32 = 9u;

fn load_largest(slot: u32) -> f32 {
  return bitcast<f32>(searches[slot * 12u + LARGEST_WORD]);
}

fn store_largest(slot: u32, largest: f32) {
  searches[slot * 12u + LARGEST_WORD] = bitcast<u32>(largest);
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

