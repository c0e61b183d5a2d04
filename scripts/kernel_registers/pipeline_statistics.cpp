// Prints what the Vulkan driver reports of each kernel's compiled pipeline (on NVIDIA: registers a
// thread, workgroup memory, local memory), through VK_KHR_pipeline_executable_properties, for
// SPIR-V written by dump_spirv and assembled by spirv-as. Part of scripts/kernel_registers.sh; not
// built with wgpt.
// Usage: pipeline_statistics [--code DIR] KERNEL.spvasm... (each beside its KERNEL.spv)
// With --code, it also writes into DIR what the driver will show of each kernel's machine code:
// its internal representations (KERNEL.N.txt or .bin, where the driver offers any), and every ELF
// image found in a pipeline cache holding only that kernel (KERNEL.N.elf: on NVIDIA a cubin,
// which nvdisasm reads, if the cache stores it in the clear). Which of these a driver gives is
// what a run finds out; the line says what was written.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

bool write_file(const std::string& path, const void* data, size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return static_cast<bool>(file);
}

// The little-endian unsigned integer of `bytes` bytes at `at` of `blob` (the caller checked that
// they lie inside it).
uint64_t little_endian(const std::string& blob, size_t at, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) {
    value |= uint64_t(static_cast<unsigned char>(blob[at + i])) << (8 * i);
  }
  return value;
}

// The 64-bit little-endian ELF images inside `blob`, as (offset, size): each header whose section
// table and sections all end inside the blob. Anything else that starts with the magic is skipped.
std::vector<std::pair<size_t, size_t>> elf_images(const std::string& blob) {
  constexpr size_t kHeader = 64, kSection = 64;
  std::vector<std::pair<size_t, size_t>> images;
  for (size_t at = blob.find("\x7f"
                             "ELF");
       at != std::string::npos; at = blob.find("\x7f"
                                               "ELF",
                                               at + 1)) {
    const size_t left = blob.size() - at;
    if (left < kHeader || blob[at + 4] != 2 || blob[at + 5] != 1) continue;
    const uint64_t table = little_endian(blob, at + 40, 8);
    const uint64_t entry = little_endian(blob, at + 58, 2);
    const uint64_t sections = little_endian(blob, at + 60, 2);
    if (entry != kSection || table > left || sections > (left - table) / kSection) continue;
    uint64_t end = table + sections * kSection;
    bool inside = true;
    for (uint64_t i = 0; i < sections && inside; ++i) {
      const size_t header = at + table + i * kSection;
      const uint64_t type = little_endian(blob, header + 4, 4);
      const uint64_t offset = little_endian(blob, header + 24, 8);
      const uint64_t size = little_endian(blob, header + 32, 8);
      if (type == 8) continue;  // SHT_NOBITS: no bytes in the file
      inside = offset <= left && size <= left - offset;
      end = std::max(end, offset + size);
    }
    if (inside) images.emplace_back(at, end);
  }
  return images;
}

// A file name's safe form of a driver's description ("SASS", "NV PTX", ...).
std::string file_part(const char* text) {
  std::string part;
  for (const char* c = text; *c; ++c) {
    part += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  }
  return part;
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
    representations_ = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
        vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableInternalRepresentationsKHR"));
    return statistics_ != nullptr;
  }

  // "name=value ..." for the pipeline of one kernel, or why there is none; with a code folder,
  // what was written there of its machine code, as `code_name`.*.
  std::string describe(const std::string& spirv, const Interface& interface,
                       const std::string& code_folder, const std::string& code_name) {
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
    if (!code_folder.empty()) {
      pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
    }
    pipeline_info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module;
    pipeline_info.stage.pName = interface.entry.c_str();
    pipeline_info.layout = layout;
    // A cache of its own, so that whatever the driver stores in it is this kernel's alone.
    VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VkPipelineCache cache;
    vkCreatePipelineCache(device_, &cache_info, nullptr, &cache);
    VkPipeline pipeline;
    const VkResult created =
        vkCreateComputePipelines(device_, cache, 1, &pipeline_info, nullptr, &pipeline);
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
      if (!code_folder.empty()) {
        line << write_code(executable, cache, code_folder + "/" + code_name);
      }
      vkDestroyPipeline(device_, pipeline, nullptr);
    }
    vkDestroyPipelineCache(device_, cache, nullptr);
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
  // Writes the pipeline's internal representations and the ELF images of its cache as
  // `prefix`.N-NAME.{txt,bin} and `prefix`.N.elf; says what it wrote.
  std::string write_code(const VkPipelineExecutableInfoKHR& executable, VkPipelineCache cache,
                         const std::string& prefix) {
    return write_representations(executable, prefix) + write_cache_images(cache, prefix);
  }

  std::string write_representations(const VkPipelineExecutableInfoKHR& executable,
                                    const std::string& prefix) {
    if (!representations_) return "representations=unavailable  ";
    uint32_t count = 0;
    representations_(device_, &executable, &count, nullptr);
    std::vector<VkPipelineExecutableInternalRepresentationKHR> representations(
        count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
    representations_(device_, &executable, &count, representations.data());  // their sizes
    std::vector<std::string> data(count);
    for (uint32_t i = 0; i < count; ++i) {
      data[i].resize(representations[i].dataSize);
      representations[i].pData = data[i].data();
    }
    representations_(device_, &executable, &count, representations.data());
    std::ostringstream written;
    written << "representations=" << count << "  ";
    for (uint32_t i = 0; i < count; ++i) {
      const VkPipelineExecutableInternalRepresentationKHR& r = representations[i];
      // A text representation's size counts its terminating zero.
      const size_t size = r.isText && r.dataSize > 0 ? r.dataSize - 1 : r.dataSize;
      const std::string path =
          prefix + "." + std::to_string(i) + "-" + file_part(r.name) + (r.isText ? ".txt" : ".bin");
      written << r.name << "(" << size << " bytes"
              << (write_file(path, r.pData, size) ? "" : ", unwritten") << ")  ";
    }
    return written.str();
  }

  std::string write_cache_images(VkPipelineCache cache, const std::string& prefix) {
    size_t cache_size = 0;
    vkGetPipelineCacheData(device_, cache, &cache_size, nullptr);
    std::string blob(cache_size, '\0');
    vkGetPipelineCacheData(device_, cache, &cache_size, blob.data());
    blob.resize(cache_size);
    const std::vector<std::pair<size_t, size_t>> images = elf_images(blob);
    for (size_t i = 0; i < images.size(); ++i) {
      write_file(prefix + "." + std::to_string(i) + ".elf", blob.data() + images[i].first,
                 images[i].second);
    }
    return "cache=" + std::to_string(cache_size) + " bytes, " + std::to_string(images.size()) +
           " ELF images  ";
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  PFN_vkGetPipelineExecutableStatisticsKHR statistics_ = nullptr;
  PFN_vkGetPipelineExecutableInternalRepresentationsKHR representations_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  StatisticsDevice device;
  if (!device.open()) {
    std::fprintf(stderr, "no Vulkan device with VK_KHR_pipeline_executable_properties\n");
    return 1;
  }
  int first = 1;
  std::string code_folder;
  if (argc > 2 && std::strcmp(argv[1], "--code") == 0) {
    code_folder = argv[2];
    first = 3;
  }
  for (int i = first; i < argc; ++i) {
    const std::string assembly_path = argv[i];
    const std::string spirv_path = assembly_path.substr(0, assembly_path.rfind('.')) + ".spv";
    const std::string spirv = read_file(spirv_path);
    const std::string name = assembly_path.substr(assembly_path.rfind('/') + 1);
    const std::string stem = name.substr(0, name.rfind('.'));
    std::printf(
        "%s  %s\n", name.c_str(),
        spirv.empty()
            ? "no SPIR-V"
            : device.describe(spirv, interface_of(read_file(assembly_path)), code_folder, stem)
                  .c_str());
  }
  return 0;
}
