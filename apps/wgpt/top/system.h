#pragma once
// What `wgpt top` shows of the machine: the NVIDIA GPU's memory, utilisation, temperature and
// power through NVML (libnvidia-ml.so.1, opened at run time when the driver has it), and the
// host's CPU and memory from /proc. A field the machine does not report is absent, with a reason.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace wgpt::top {

struct GpuReading {
  std::string name;
  std::optional<uint64_t> memory_used, memory_total;  // bytes
  std::optional<unsigned> utilisation;                // percent
  std::optional<unsigned> temperature;                // °C
  std::optional<double> power;                        // watts
};

struct HostReading {
  std::optional<double> cpu;  // percent of all cores since the previous reading
  std::optional<uint64_t> memory_used, memory_total;  // bytes
  std::optional<uint64_t> process_resident;           // this process's resident bytes
};

class SystemMonitor {
 public:
  SystemMonitor();
  ~SystemMonitor();
  SystemMonitor(const SystemMonitor&) = delete;
  SystemMonitor& operator=(const SystemMonitor&) = delete;

  // GPU 0's reading, or none when NVML is absent or fails (see gpu_unavailable()).
  std::optional<GpuReading> gpu();
  // Why there is no GPU reading: "no NVML (libnvidia-ml.so.1 is not installed)", …
  const std::string& gpu_unavailable() const { return gpu_unavailable_; }
  HostReading host();

 private:
  struct Nvml;
  std::unique_ptr<Nvml> nvml_;
  std::string gpu_unavailable_;
  uint64_t last_busy_ = 0, last_total_ = 0;
};

}  // namespace wgpt::top
