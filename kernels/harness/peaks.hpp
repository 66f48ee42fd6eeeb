// Datasheet peaks of known GPUs, for the roofline floor. The floor must never exceed what an
// honest kernel can reach, so every number here is the vendor's peak (dense, no sparsity), and
// the DRAM bandwidth is the larger of the table and what the device's attributes imply.
// Plain C++17, unit-tested without a GPU. docs/harness.md lists the same table.
#pragma once

#include <algorithm>
#include <string>

namespace socratic::harness {

/// Peak dense bf16 tensor throughput (TFLOP/s) and DRAM bandwidth (GB/s) of one GPU.
struct DevicePeaks {
  double tflops = 0;
  double gbps = 0;
  std::string source;  ///< "table: H200 SXM" or "attributes"
};

struct PeakEntry {
  const char* name_contains;  ///< matched against cudaDeviceProp::name, first match wins
  const char* label;
  double bf16_dense_tflops;
  double dram_gbps;
};

/// Vendor datasheets. Order matters: more specific names first ("GH200" before "H200").
inline constexpr PeakEntry known_peaks[] = {
    {"GH200", "GH200", 989.4, 4900},
    {"H200 NVL", "H200 NVL", 835.0, 4800},
    {"H200", "H200 SXM", 989.4, 4800},
    {"H100 PCIe", "H100 PCIe", 756.0, 2000},
    {"H100 NVL", "H100 NVL", 835.0, 3900},
    {"H100", "H100 SXM", 989.4, 3350},
    {"H800", "H800 SXM", 989.4, 3350},
    {"A100-SXM4-80GB", "A100 SXM 80GB", 312.0, 2039},
    {"A100 80GB PCIe", "A100 PCIe 80GB", 312.0, 1935},
    {"A100", "A100 40GB", 312.0, 1555},
    {"GB200", "GB200", 2500.0, 8000},
    {"B200", "B200", 2250.0, 8000},
    {"L40S", "L40S", 362.05, 864},
    {"RTX 4090", "GeForce RTX 4090", 165.2, 1008},
};

/// Dense bf16 tensor FLOP per SM per clock by compute capability major, for unknown devices
/// (generous, so that the floor stays below what the chip can do).
inline double bf16_flop_per_sm_clock(int cc_major) {
  if (cc_major >= 10) return 8192;
  if (cc_major == 9) return 4096;
  return 2048;
}

/// DRAM bandwidth implied by the attributes: 2 (double data rate) x clock x bus width.
inline double attribute_gbps(int memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0;
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

/// The peaks of a device from its name (table) and attributes (fallback, and a bandwidth
/// floor-safety: the larger bandwidth wins).
inline DevicePeaks device_peaks(const std::string& name, int cc_major, int sm_count,
                                int sm_clock_khz, int memory_clock_khz, int bus_width_bits) {
  DevicePeaks p;
  const double attr_bw = attribute_gbps(memory_clock_khz, bus_width_bits);
  for (const auto& e : known_peaks) {
    if (name.find(e.name_contains) != std::string::npos) {
      p.tflops = e.bf16_dense_tflops;
      p.gbps = std::max(e.dram_gbps, attr_bw);
      p.source = std::string("table: ") + e.label;
      return p;
    }
  }
  p.tflops = sm_count > 0 && sm_clock_khz > 0
                 ? sm_count * (sm_clock_khz * 1e3) * bf16_flop_per_sm_clock(cc_major) / 1e12
                 : 0;
  p.gbps = attr_bw;
  p.source = "attributes";
  return p;
}

}  // namespace socratic::harness
