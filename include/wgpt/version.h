#pragma once
// What this build of wgpt is — what `wgpt --version` prints and what a bug report should quote.

#include <string_view>

namespace wgpt {

// The release, "MAJOR.MINOR.PATCH".
std::string_view version();
// The git commit the library was built from ("7be5e13a1b2c", with " with uncommitted changes"
// when the checkout differed from it), or "unknown (…)" outside a git checkout.
std::string_view commit();
// The WebGPU implementation the library was built against: for a native build the library's file
// name, where it came from (the npm package beside it, when there is one) and its SHA-256; for
// the browser build, the browser's own WebGPU.
std::string_view webgpu_build();

}  // namespace wgpt
