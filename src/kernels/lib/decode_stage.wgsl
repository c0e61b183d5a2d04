// The decode kernels' input vector in workgroup memory (a LayerNorm's output, the merged attention
// heads, the MLP's hidden values): computed or copied once per workgroup, then read by every
// thread's dot products, so their loops issue weight loads only. Widths up to STAGE; longer inputs
// (the MLP's 4·width) are staged in parts.
const STAGE: u32 = 2048u;
var<workgroup> staged: array<f32, STAGE>;
