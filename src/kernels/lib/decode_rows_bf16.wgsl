// lib/decode_gemv.wgsl's weights stored as bf16: a row at a time (decode_rows_each.wgsl).
//! include "load8_bf16.wgsl" for weight
//! include "decode_rows_each.wgsl"
