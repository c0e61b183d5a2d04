#include <array>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

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

namespace {

// Each form's name, as WGPT_PROMPT_ATTENTION spells it: the one list that parsing, printing and
// the error's list of accepted names read.
constexpr std::array<std::pair<std::string_view, PromptAttention>, 4> kPromptAttentionNames = {{
    {"auto", PromptAttention::automatic},
    {"plain", PromptAttention::plain},
    {"pairs", PromptAttention::pairs},
    {"quarters", PromptAttention::quarters},
}};

}  // namespace

PromptAttention parse_prompt_attention(std::string_view name) {
  if (name.empty()) return PromptAttention::automatic;
  std::string accepted;
  for (const auto& [spelled, form] : kPromptAttentionNames) {
    if (name == spelled) return form;
    accepted += (accepted.empty() ? "" : ", ") + std::string(spelled);
  }
  throw Error("unknown prompt attention '" + std::string(name) + "' (expected " + accepted + ")");
}

std::string_view to_string(PromptAttention form) {
  for (const auto& [spelled, named] : kPromptAttentionNames) {
    if (named == form) return spelled;
  }
  return "auto";  // unreachable: every form has a name
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
