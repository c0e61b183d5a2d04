#include "gpu/adapter_choice.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <dlfcn.h>
#endif

namespace wgpt::gpu {

std::vector<NativeBackend> adapter_candidates(Backend backend) {
  switch (backend) {
    case Backend::vulkan:
      return {NativeBackend::vulkan};
    case Backend::metal:
      return {NativeBackend::metal};
    case Backend::d3d12:
      return {NativeBackend::d3d12};
    case Backend::gl:
      return {NativeBackend::opengles};
    case Backend::automatic:
      break;
  }
#if defined(__APPLE__)
  return {NativeBackend::metal};
#elif defined(_WIN32)
  return {NativeBackend::d3d12, NativeBackend::vulkan};
#elif defined(__linux__) && !defined(__EMSCRIPTEN__)
  // Without a Vulkan loader, Dawn would only print a warning before moving on: skip it quietly.
  if (void* loader = dlopen("libvulkan.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(loader);
    return {NativeBackend::vulkan, NativeBackend::opengles};
  }
  return {NativeBackend::opengles};
#else
  return {NativeBackend::vulkan, NativeBackend::opengles};
#endif
}

bool is_software_adapter(std::string_view device, std::string_view description) {
  std::string text = std::string(device) + " " + std::string(description);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  constexpr std::array kSoftware = {"llvmpipe", "swiftshader", "lavapipe", "softpipe"};
  return std::any_of(kSoftware.begin(), kSoftware.end(),
                     [&](const char* name) { return text.find(name) != std::string::npos; });
}

void prepare_headless_egl() {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  // Dawn loads and unloads EGL with each OpenGL ES device, while threads that used EGL can exit
  // later and run its thread-local destructors from unloaded code: crashes when contexts are
  // created and destroyed on several threads (4 in 40 runs of the concurrency test without this,
  // 0 in 40 with it). Our own never-released reference keeps EGL loaded.
  static void* const egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  (void)egl;
  // EGL without a display (a server, CI) needs the surfaceless platform. Other systems reach
  // OpenGL ES through their window system, or not at all.
  const bool has_display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
  const char* platform = std::getenv("EGL_PLATFORM");
  if (!has_display && (!platform || !*platform)) setenv("EGL_PLATFORM", "surfaceless", 1);
#endif
}

}  // namespace wgpt::gpu
