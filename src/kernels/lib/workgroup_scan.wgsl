// Inclusive prefix sums across one 256-thread workgroup, thread order: of a u32 and of a 64-bit
// vec2<u32> (low, high) at once. Double-buffered (each round reads one array and writes the
// other), so no value read from workgroup memory is carried across a barrier: Mesa's llvmpipe
// miscompiles that (as row_reduce.wgsl notes). Every thread gets its own inclusive sums.

var<workgroup> scan_count: array<array<u32, 256>, 2>;
var<workgroup> scan_mass: array<array<vec2<u32>, 256>, 2>;

struct ScanResult {
  count: u32,
  mass: vec2<u32>,
  total_count: u32,  // the last thread's sums
  total_mass: vec2<u32>,
}

fn workgroup_scan(local: u32, count: u32, mass: vec2<u32>) -> ScanResult {
  workgroupBarrier();  // every thread has read the previous scan's result
  scan_count[0][local] = count;
  scan_mass[0][local] = mass;
  var source = 0u;
  for (var offset = 1u; offset < 256u; offset *= 2u) {
    workgroupBarrier();
    var c = scan_count[source][local];
    var m = scan_mass[source][local];
    if (local >= offset) {
      c += scan_count[source][local - offset];
      m = add64(m, scan_mass[source][local - offset]);
    }
    scan_count[1u - source][local] = c;
    scan_mass[1u - source][local] = m;
    source = 1u - source;
  }
  workgroupBarrier();
  return ScanResult(scan_count[source][local], scan_mass[source][local], scan_count[source][255],
                    scan_mass[source][255]);
}
