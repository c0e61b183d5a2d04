#include <cstdlib>
#include <string>

#include "wgpt/gpu.h"

namespace wgpt::gpu {

Backend parse_backend(std::string_view name) {
  if (name == "auto" || name.empty()) return Backend::automatic;
  if (name == "vulkan") return Backend::vulkan;
  if (name == "metal") return Backend::metal;
  if (name == "d3d12") return Backend::d3d12;
  if (name == "gl") return Backend::gl;
  throw Error("unknown WebGPU backend '" + std::string(name) +
              "' (expected auto, vulkan, metal, d3d12 or gl)");
}

Backend backend_from_environment() {
  const char* name = std::getenv("WGPT_BACKEND");
  return parse_backend(name ? name : "");
}

bool kernel_checks_from_environment() {
  const char* value = std::getenv("WGPT_KERNEL_CHECKS");
  const std::string_view text = value ? value : "";
  if (text.empty() || text == "1" || text == "on" || text == "true") return true;
  if (text == "0" || text == "off" || text == "false") return false;
  throw Error("WGPT_KERNEL_CHECKS='" + std::string(text) +
              "' (expected 1, on, true, 0, off or false)");
}

std::string kernel_directory_from_environment() {
  const char* value = std::getenv("WGPT_KERNEL_DIR");
  return value ? value : "";
}

PromptAttention parse_prompt_attention(std::string_view name) {
  if (name == "auto" || name.empty()) return PromptAttention::automatic;
  if (name == "plain") return PromptAttention::plain;
  if (name == "pairs") return PromptAttention::pairs;
  if (name == "quarters") return PromptAttention::quarters;
  throw Error("unknown prompt attention '" + std::string(name) +
              "' (expected auto, plain, pairs or quarters)");
}

std::string_view to_string(PromptAttention form) {
  switch (form) {
    case PromptAttention::automatic:
      return "auto";
    case PromptAttention::plain:
      return "plain";
    case PromptAttention::pairs:
      return "pairs";
    case PromptAttention::quarters:
      return "quarters";
  }
  return "auto";
}

PromptAttention prompt_attention_from_environment() {
  const char* name = std::getenv("WGPT_PROMPT_ATTENTION");
  try {
    return parse_prompt_attention(name ? name : "");
  } catch (const Error& error) {
    throw Error(std::string("WGPT_PROMPT_ATTENTION: ") + error.what());
  }
}

}  // namespace wgpt::gpu
