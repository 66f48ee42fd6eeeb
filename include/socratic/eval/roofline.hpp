#pragma once
/// @file
/// @brief The roofline floor: no correct implementation can take less time than its FLOPs at the
/// peak rate or its minimum bytes at the peak bandwidth. Used to read throughput and to reject
/// times that are physically impossible. Light: standard library.

#include <algorithm>
#include <cmath>
#include <limits>

namespace socratic::roofline {

/// @brief A device's peaks: dense tensor throughput (TFLOP/s) and memory bandwidth (GB/s).
struct Peaks {
  double tflops = std::numeric_limits<double>::quiet_NaN();
  double gbps = std::numeric_limits<double>::quiet_NaN();
};

/// @brief Floor time in milliseconds: max(flops / peak FLOP/s, bytes / peak B/s). A peak that is
/// unknown (NaN or non-positive) drops its term; NaN when neither term is known.
inline double floor_ms(double flops, double bytes, const Peaks& peaks) {
  double floor = std::numeric_limits<double>::quiet_NaN();
  if (flops >= 0 && peaks.tflops > 0) floor = flops / (peaks.tflops * 1e12) * 1e3;
  if (bytes >= 0 && peaks.gbps > 0) {
    const double memory = bytes / (peaks.gbps * 1e9) * 1e3;
    floor = std::isnan(floor) ? memory : std::max(floor, memory);
  }
  return floor;
}

/// @brief Throughput in TFLOP/s of `flops` done in `ms`; NaN for a non-positive time.
inline double tflops(double flops, double ms) {
  if (!(ms > 0) || !(flops >= 0)) return std::numeric_limits<double>::quiet_NaN();
  return flops / (ms * 1e-3) / 1e12;
}

/// @brief Fraction of the bound reached: floor / measured (1 = at the bound). NaN when unknown.
inline double fraction(double floor_ms, double measured_ms) {
  if (!(measured_ms > 0) || !(floor_ms > 0)) return std::numeric_limits<double>::quiet_NaN();
  return floor_ms / measured_ms;
}

/// @brief True when `measured_ms` is below the floor by more than `tolerance` (relative), i.e. the
/// time cannot be honest. A measurement or floor that is unknown is not judged (false).
inline bool below_floor(double measured_ms, double floor_ms, double tolerance = 0.02) {
  if (!(measured_ms > 0) || !(floor_ms > 0)) return false;
  return measured_ms < floor_ms * (1 - tolerance);
}

/// @brief True when `tflops` exceeds the device peak by more than `tolerance` (relative).
inline bool above_peak(double measured_tflops, const Peaks& peaks, double tolerance = 0.05) {
  if (!(measured_tflops > 0) || !(peaks.tflops > 0)) return false;
  return measured_tflops > peaks.tflops * (1 + tolerance);
}

}  // namespace socratic::roofline
