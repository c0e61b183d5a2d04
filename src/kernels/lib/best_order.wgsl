// The greedy order of candidates (value, index): the larger value wins, the lower index on ties
// (as HF's argmax); index 0xffffffff marks no candidate. Whether (value, index) beats the best so
// far.
fn better(value: f32, index: u32, best_value: f32, best_index: u32) -> bool {
  return index != 0xffffffffu &&
         (best_index == 0xffffffffu || value > best_value ||
          (value == best_value && index < best_index));
}
