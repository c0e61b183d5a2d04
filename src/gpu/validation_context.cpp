#include "gpu/validation_context.h"

#include <optional>

#include "gpu/context_impl.h"

namespace wgpt::gpu {

std::shared_ptr<Context> create_validation_context(const SubgroupMatrix& f16_matrix) {
#ifdef __EMSCRIPTEN__
  (void)f16_matrix;
  throw Error("the browser has no Null WebGPU adapter");
#else
  auto impl = std::make_unique<Context::Impl>();
  std::optional<std::string> failure;
  api::create_null_device(f16_matrix, impl->errors.get(),
                          [&](api::DeviceHandles handles, std::string error) {
                            if (!error.empty()) failure = error;
                            impl->handles = std::move(handles);
                          });
  if (failure) throw Error(*failure);
  return std::shared_ptr<Context>(new Context(std::move(impl)));
#endif
}

}  // namespace wgpt::gpu
