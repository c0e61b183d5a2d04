#pragma once
// The number of elements of a shape read from an untrusted source.

#include <cstdint>
#include <optional>

#include "wgpt/io.h"

namespace wgpt::io {

// The product of the dimensions (1 for a scalar), or nullopt when a dimension is negative or the
// product does not fit in 63 bits. A zero dimension gives 0 even if the others would overflow.
std::optional<uint64_t> element_count(const Shape& shape);

// "[2, 3]", for messages.
std::string shape_string(const Shape& shape);

}  // namespace wgpt::io
