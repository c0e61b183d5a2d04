#include "top/system.h"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

namespace wgpt::top {

// NVML's C interface, declared here for the few calls used (its ABI has been stable for a decade):
// opened with dlopen, so the tool needs no NVIDIA package to build or run.
struct SystemMonitor::Nvml {
  using Device = void*;
  struct Memory {
    unsigned long long total, free, used;
  };
  struct Utilization {
    unsigned gpu, memory;
  };
  void* library = nullptr;
  Device device = nullptr;
  int (*shutdown)() = nullptr;
  int (*get_name)(Device, char*, unsigned) = nullptr;
  int (*get_memory)(Device, Memory*) = nullptr;
  int (*get_utilization)(Device, Utilization*) = nullptr;
  int (*get_temperature)(Device, int, unsigned*) = nullptr;
  int (*get_power)(Device, unsigned*) = nullptr;  // milliwatts

  ~Nvml() {
    if (shutdown) shutdown();
    if (library) dlclose(library);
  }
};

namespace {

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

// kB values of /proc/meminfo or /proc/self/status, in bytes.
std::optional<uint64_t> kilobytes(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream fields(line.substr(key.size() + 1));
      uint64_t value = 0;
      if (fields >> value) return value * 1024;
    }
  }
  return std::nullopt;
}

}  // namespace

SystemMonitor::SystemMonitor() {
  auto nvml = std::make_unique<Nvml>();
  nvml->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml->library) {
    gpu_unavailable_ = "no NVML here (libnvidia-ml.so.1 comes with an NVIDIA driver)";
    return;
  }
  auto init = symbol<int (*)()>(nvml->library, "nvmlInit_v2");
  auto by_index =
      symbol<int (*)(unsigned, Nvml::Device*)>(nvml->library, "nvmlDeviceGetHandleByIndex_v2");
  if (!init || !by_index) {
    gpu_unavailable_ = "NVML lacks nvmlInit_v2 (a driver older than 2012?)";
    return;
  }
  if (int status = init(); status != 0) {
    gpu_unavailable_ = "NVML did not start (error " + std::to_string(status) + ")";
    return;
  }
  nvml->shutdown = symbol<int (*)()>(nvml->library, "nvmlShutdown");
  if (int status = by_index(0, &nvml->device); status != 0) {
    gpu_unavailable_ = "NVML sees no GPU 0 (error " + std::to_string(status) + ")";
    return;
  }
  nvml->get_name = symbol<decltype(nvml->get_name)>(nvml->library, "nvmlDeviceGetName");
  nvml->get_memory = symbol<decltype(nvml->get_memory)>(nvml->library, "nvmlDeviceGetMemoryInfo");
  nvml->get_utilization =
      symbol<decltype(nvml->get_utilization)>(nvml->library, "nvmlDeviceGetUtilizationRates");
  nvml->get_temperature =
      symbol<decltype(nvml->get_temperature)>(nvml->library, "nvmlDeviceGetTemperature");
  nvml->get_power = symbol<decltype(nvml->get_power)>(nvml->library, "nvmlDeviceGetPowerUsage");
  nvml_ = std::move(nvml);
}

SystemMonitor::~SystemMonitor() = default;

std::optional<GpuReading> SystemMonitor::gpu() {
  if (!nvml_) return std::nullopt;
  GpuReading reading;
  const Nvml& n = *nvml_;
  char name[96] = {};
  if (n.get_name && n.get_name(n.device, name, sizeof name) == 0) reading.name = name;
  Nvml::Memory memory{};
  if (n.get_memory && n.get_memory(n.device, &memory) == 0) {
    reading.memory_used = memory.used;
    reading.memory_total = memory.total;
  }
  Nvml::Utilization utilization{};
  if (n.get_utilization && n.get_utilization(n.device, &utilization) == 0) {
    reading.utilisation = utilization.gpu;
  }
  unsigned value = 0;
  if (n.get_temperature && n.get_temperature(n.device, 0 /* NVML_TEMPERATURE_GPU */, &value) == 0) {
    reading.temperature = value;
  }
  if (n.get_power && n.get_power(n.device, &value) == 0) reading.power = value / 1000.0;
  return reading;
}

HostReading SystemMonitor::host() {
  HostReading reading;
  std::ifstream stat("/proc/stat");
  std::string cpu;
  uint64_t busy = 0, total = 0, value = 0;
  if (stat >> cpu && cpu == "cpu") {
    // user nice system idle iowait irq softirq steal: idle and iowait are the idle time.
    for (int field = 0; field < 8 && stat >> value; ++field) {
      total += value;
      if (field != 3 && field != 4) busy += value;
    }
    if (last_total_ != 0 && total > last_total_) {
      reading.cpu =
          100.0 * static_cast<double>(busy - last_busy_) / static_cast<double>(total - last_total_);
    }
    last_busy_ = busy;
    last_total_ = total;
  }
  reading.memory_total = kilobytes("/proc/meminfo", "MemTotal");
  const auto available = kilobytes("/proc/meminfo", "MemAvailable");
  if (reading.memory_total && available) reading.memory_used = *reading.memory_total - *available;
  reading.process_resident = kilobytes("/proc/self/status", "VmRSS");
  return reading;
}

}  // namespace wgpt::top
