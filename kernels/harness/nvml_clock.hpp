// The SM clock through NVML, loaded with dlopen so the runner neither links nor needs it:
// without libnvidia-ml.so.1 (or without permission) every reading is NaN and nothing else
// changes. Plain C++17: only the handful of NVML entry points used are declared here.
#pragma once

#include <dlfcn.h>

#include <string>

#include "stats.hpp"

namespace socratic::harness {

class SmClock {
 public:
  /// `pci_bus_id` as cudaDeviceGetPCIBusId writes it ("0000:1B:00.0").
  explicit SmClock(const std::string& pci_bus_id) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      why_ = "libnvidia-ml.so.1 not found";
      return;
    }
    auto init = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(
        dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetClockInfo"));
    auto max_clock =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetMaxClockInfo"));
    if (!init || !by_bus || !clock_ || !max_clock) {
      why_ = "libnvidia-ml.so.1 lacks the expected entry points";
      return;
    }
    if (init() != 0) {
      why_ = "nvmlInit_v2 failed";
      return;
    }
    if (by_bus(pci_bus_id.c_str(), &device_) != 0 || !device_) {
      why_ = "NVML does not know the device at PCI " + pci_bus_id;
      return;
    }
    unsigned mhz = 0;
    if (max_clock(device_, nvml_clock_sm, &mhz) == 0 && mhz > 0) max_mhz_ = mhz;
    ok_ = true;
  }
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  bool available() const { return ok_; }
  const std::string& why_unavailable() const { return why_; }
  /// Current SM clock in MHz, NaN when unreadable.
  double current_mhz() const {
    unsigned mhz = 0;
    if (!ok_ || clock_(device_, nvml_clock_sm, &mhz) != 0 || mhz == 0) return not_measured;
    return mhz;
  }
  /// Maximum SM clock in MHz, NaN when unreadable.
  double max_mhz() const { return max_mhz_; }

 private:
  static constexpr int nvml_clock_sm = 1;  // NVML_CLOCK_SM
  void* lib_ = nullptr;
  void* device_ = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  double max_mhz_ = not_measured;
  bool ok_ = false;
  std::string why_;
};

}  // namespace socratic::harness
