// Warming the next products' weights into the GPU's L2 cache (ops::decode::Warm): extra
// workgroups of a decode kernel, past the ones that do its work, read every 32-byte sector of
// the weights that a later kernel of the step will read, so that its loads find them in L2
// instead of a round trip to memory. A decode product is a chain of dependent latencies (see
// decode_gemv.wgsl), and a step reads ~250 MB of weights (GPT-2 124M, f16) that a cache of tens
// of MB cannot keep from one step to the next; the kernel before a product leaves most of the
// GPU idle, so its extra workgroups cost it little.
// Each thread reads one word of WARM_LOADS sectors, all in flight together, and stores what it
// read (combined) into warm_sink[local]: an output the compiler cannot drop, so it keeps the
// loads. Every warming workgroup stores to the same words; what they hold is never read.
// The includer declares `warm: array<u32>` (the weights to warm), `warm_sink: array<u32>`
// (read_write, at least WARM_THREADS words) and `WARM_THREADS` (its workgroup size).

const WARM_LOADS: u32 = 8u;     // sectors per thread
const SECTOR_WORDS: u32 = 8u;  // 32 bytes, the L2's unit of a fill

// For a product kernel of `product_groups` workgroups (lib/decode_gemv.wgsl), after its
// gemv_prefetch (which loads nothing in a workgroup past the product's, so the product's own loads
// need not wait for this test: before them, it cost 0.8–2.8% of a step on the H200): whether
// workgroup `group` is one past the product's, which then warms its share and does nothing else.
// Uniform across the workgroup.
fn warmed_instead(group: u32, product_groups: u32, local: u32) -> bool {
  if (group < product_groups) {
    return false;
  }
  warm_weights(group - product_groups, local);
  return true;
}

// Warming workgroup `index` (0 for the first past the kernel's own) reads its WARM_LOADS ·
// WARM_THREADS sectors.
fn warm_weights(index: u32, local: u32) {
  var seen = 0u;
  for (var j = 0u; j < WARM_LOADS; j++) {
    let sector = (index * WARM_LOADS + j) * WARM_THREADS + local;
    let word = sector * SECTOR_WORDS;
    if (word < arrayLength(&warm)) {
      seen ^= warm[word];
    }
  }
  warm_sink[local] = seen;
}
