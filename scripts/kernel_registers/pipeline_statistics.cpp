// Prints what the Vulkan driver reports of each kernel's compiled pipeline (on NVIDIA: registers a
// thread, workgroup memory, local memory), through VK_KHR_pipeline_executable_properties, for
// SPIR-V written by dump_spirv and assembled by spirv-as. Part of scripts/kernel_registers.sh; not
// built with wgpt.
// Usage: pipeline_statistics KERNEL.spvasm... (each beside its KERNEL.spv)
#include <vulkan/vulkan.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), {}};
}

// What a pipeline layout needs from the assembly: the entry point's name (Dawn renames it), each
// resource's set, binding and kind, and whether push constants are used.
struct Interface {
  std::string entry = "main";
  struct Binding {
    uint32_t set, binding;
    VkDescriptorType type;
  };
  std::vector<Binding> bindings;
  bool push_constants = false;
};

Interface interface_of(const std::string& assembly) {
  Interface result;
  std::smatch match;
  if (std::regex_search(assembly, match, std::regex(R"(OpEntryPoint GLCompute %\S+ "([^"]+)\")"))) {
    result.entry = match[1];
  }
  result.push_constants =
      std::regex_search(assembly, std::regex(R"(OpVariable %\S+ PushConstant)"));
  const std::regex set_of(R"(OpDecorate (%\S+) DescriptorSet (\d+))");
  for (std::sregex_iterator it(assembly.begin(), assembly.end(), set_of), end; it != end; ++it) {
    const std::string id = (*it)[1];
    std::smatch binding, variable;
    std::regex_search(assembly, binding, std::regex("OpDecorate " + id + R"( Binding (\d+))"));
    std::regex_search(assembly, variable, std::regex(id + R"( = OpVariable %\S+ (\w+))"));
    const bool uniform = variable.size() > 1 && variable[1] == "Uniform";
    result.bindings.push_back(
        {static_cast<uint32_t>(std::stoul((*it)[2])), static_cast<uint32_t>(std::stoul(binding[1])),
         uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER});
  }
  return result;
}

std::string value_of(const VkPipelineExecutableStatisticKHR& statistic) {
  switch (statistic.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return std::to_string(statistic.value.b32);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(statistic.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(statistic.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return std::to_string(statistic.value.f64);
    default:
      return "?";
  }
}

class StatisticsDevice {
 public:
  bool open() {
    VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    application.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instance_info.pApplicationInfo = &application;
    if (vkCreateInstance(&instance_info, nullptr, &instance_) != VK_SUCCESS) return false;
    uint32_t count = 1;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    vkEnumeratePhysicalDevices(instance_, &count, &physical);
    if (count == 0) return false;
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(physical, &properties);
    std::printf("device: %s\n", properties.deviceName);

    // The features Dawn's SPIR-V may declare capabilities for.
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    executables.pipelineExecutableInfo = VK_TRUE;
    VkPhysicalDeviceVulkan12Features vulkan12{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    vulkan12.pNext = &executables;
    vulkan12.vulkanMemoryModel = VK_TRUE;
    vulkan12.vulkanMemoryModelDeviceScope = VK_TRUE;
    vulkan12.shaderFloat16 = VK_TRUE;
    VkPhysicalDeviceVulkan11Features vulkan11{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    vulkan11.pNext = &vulkan12;
    vulkan11.storageBuffer16BitAccess = VK_TRUE;
    vulkan11.uniformAndStorageBuffer16BitAccess = VK_TRUE;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &vulkan11;
    const float priority = 1;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    const char* extension = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = &features;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    device_info.enabledExtensionCount = 1;
    device_info.ppEnabledExtensionNames = &extension;
    if (vkCreateDevice(physical, &device_info, nullptr, &device_) != VK_SUCCESS) return false;
    statistics_ = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableStatisticsKHR"));
    return statistics_ != nullptr;
  }

  // "name=value ..." for the pipeline of one kernel, or why there is none.
  std::string describe(const std::string& spirv, const Interface& interface) {
    std::vector<VkDescriptorSetLayout> sets;
    for (const Interface::Binding& binding : interface.bindings) {
      if (binding.set >= sets.size()) sets.resize(binding.set + 1, VK_NULL_HANDLE);
    }
    for (uint32_t set = 0; set < sets.size(); ++set) {
      std::vector<VkDescriptorSetLayoutBinding> bindings;
      for (const Interface::Binding& binding : interface.bindings) {
        if (binding.set == set) {
          bindings.push_back({binding.binding, binding.type, 1, VK_SHADER_STAGE_COMPUTE_BIT});
        }
      }
      VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
      info.bindingCount = bindings.size();
      info.pBindings = bindings.data();
      vkCreateDescriptorSetLayout(device_, &info, nullptr, &sets[set]);
    }
    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = sets.size();
    layout_info.pSetLayouts = sets.data();
    layout_info.pushConstantRangeCount = interface.push_constants ? 1 : 0;
    layout_info.pPushConstantRanges = &push;
    VkPipelineLayout layout;
    vkCreatePipelineLayout(device_, &layout_info, nullptr, &layout);
    VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module_info.codeSize = spirv.size();
    module_info.pCode = reinterpret_cast<const uint32_t*>(spirv.data());
    VkShaderModule module;
    if (vkCreateShaderModule(device_, &module_info, nullptr, &module) != VK_SUCCESS) {
      return "the driver refused the SPIR-V";
    }
    VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipeline_info.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    pipeline_info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module;
    pipeline_info.stage.pName = interface.entry.c_str();
    pipeline_info.layout = layout;
    VkPipeline pipeline;
    const VkResult created =
        vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline);
    std::ostringstream line;
    if (created != VK_SUCCESS) {
      line << "no pipeline (VkResult " << created << ")";
    } else {
      VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
      executable.pipeline = pipeline;
      uint32_t count = 0;
      statistics_(device_, &executable, &count, nullptr);
      std::vector<VkPipelineExecutableStatisticKHR> statistics(
          count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
      statistics_(device_, &executable, &count, statistics.data());
      for (const VkPipelineExecutableStatisticKHR& statistic : statistics) {
        line << statistic.name << '=' << value_of(statistic) << "  ";
      }
      vkDestroyPipeline(device_, pipeline, nullptr);
    }
    vkDestroyShaderModule(device_, module, nullptr);
    vkDestroyPipelineLayout(device_, layout, nullptr);
    for (VkDescriptorSetLayout set : sets) vkDestroyDescriptorSetLayout(device_, set, nullptr);
    return line.str();
  }

  ~StatisticsDevice() {
    if (device_) vkDestroyDevice(device_, nullptr);
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  PFN_vkGetPipelineExecutableStatisticsKHR statistics_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  StatisticsDevice device;
  if (!device.open()) {
    std::fprintf(stderr, "no Vulkan device with VK_KHR_pipeline_executable_properties\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string assembly_path = argv[i];
    const std::string spirv_path = assembly_path.substr(0, assembly_path.rfind('.')) + ".spv";
    const std::string spirv = read_file(spirv_path);
    const std::string name = assembly_path.substr(assembly_path.rfind('/') + 1);
    std::printf("%s  %s\n", name.c_str(),
                spirv.empty()
                    ? "no SPIR-V"
                    : device.describe(spirv, interface_of(read_file(assembly_path))).c_str());
  }
  return 0;
}
