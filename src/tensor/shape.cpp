#include <string>

#include "wgpt/tensor.h"

namespace wgpt {

std::string to_string(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

const char* to_string(Device device) { return device == Device::cpu ? "cpu" : "gpu"; }

size_t numel(const Shape& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

}  // namespace wgpt
