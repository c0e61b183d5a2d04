// lib/decode_gemv.wgsl's weights stored as f16: a row at a time (decode_rows_each.wgsl).
//! include "load8_f16.wgsl" for weight
//! include "decode_rows_each.wgsl"
