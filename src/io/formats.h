#pragma once
// The format codecs behind the public load/save functions, over bytes and sinks.

#include <memory>
#include <span>
#include <string_view>

#include "io/byte_sink.h"
#include "wgpt/gguf.h"
#include "wgpt/io.h"

namespace wgpt::io {

// Parses a safetensors image. When `owner` keeps `bytes` alive (a mapped file), aligned F32 tensors
// view into `bytes`; without an owner every tensor is copied.
TensorFile parse_safetensors(std::span<const uint8_t> bytes, std::string_view source,
                             const std::shared_ptr<const void>& owner);
// The header alone, checked as parse_safetensors checks it.
TensorIndex index_safetensors(std::span<const uint8_t> bytes, std::string_view source);
void write_safetensors(ByteSink& sink, std::span<const TensorData> tensors,
                       const Metadata& metadata);

// Parses a GGUF image; its tensors view `bytes`, which `owner` keeps alive.
GgufFile parse_gguf(std::span<const uint8_t> bytes, std::string_view source,
                    std::shared_ptr<const void> owner);
void write_gguf(ByteSink& sink, const GgufMetadata& metadata, std::span<const TensorData> tensors);

// Parses an fzm image (always dequantized into new memory).
TensorFile parse_fzm(std::span<const uint8_t> bytes, std::string_view source);
// The records' headers alone, checked as parse_fzm checks them; the data is skipped.
TensorIndex index_fzm(std::span<const uint8_t> bytes, std::string_view source);
void write_fzm(ByteSink& sink, std::span<const TensorData> tensors);

}  // namespace wgpt::io
