#pragma once
/// @file
/// @brief Small pieces the report's plots share: escaping, number formats, axes with nice ticks
/// (linear or logarithmic), the speedup colour scale, and label placement without overlaps.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace socratic::detail::report {

inline std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

/// @brief `v` in printf format `f`; "n/a" when it is not a number.
inline std::string num(double v, const char* f = "%.3f") {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// @brief A coordinate for an SVG attribute (one decimal).
inline std::string px(double v) { return num(v, "%.1f"); }

inline std::string excerpt(const std::string& s, std::size_t n = 280) {
  if (s.size() <= n) return s;
  std::size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return s.substr(0, cut) + "...";
}

/// @brief A step of 1, 2 or 5 times a power of ten giving at most `max_ticks` ticks over `span`.
inline double nice_step(double span, int max_ticks) {
  if (!(span > 0)) return 1;
  const double raw = span / std::max(1, max_ticks);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

/// @brief A value axis mapped onto [pixel_lo, pixel_hi] (lo at pixel_lo), linear or logarithmic.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double pixel_lo = 0, pixel_hi = 1;

  double at(double v) const {
    const double t = log ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
    return pixel_lo + t * (pixel_hi - pixel_lo);
  }
  bool contains(double v) const { return std::isfinite(v) && v >= lo && v <= hi; }

  /// @brief Tick values: 1-2-5 multiples on a linear axis; 1, 2, 5 per decade (or finer when the
  /// range is narrow) on a logarithmic one.
  std::vector<double> ticks(int max_ticks = 6) const {
    std::vector<double> out;
    if (!log) {
      const double step = nice_step(hi - lo, max_ticks);
      for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
        out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
      return out;
    }
    for (const double mantissas_per_decade : {3.0, 9.0}) {
      out.clear();
      for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
        const std::vector<double> ms = mantissas_per_decade == 3 ? std::vector<double>{1, 2, 5}
                                                                 : std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 7, 8};
        for (double m : ms)
          if (m * decade >= lo * (1 - 1e-9) && m * decade <= hi * (1 + 1e-9)) out.push_back(m * decade);
      }
      if (out.size() >= 3) break;
    }
    if (out.size() < 3) {  // a very narrow range: linear ticks on the log axis
      Axis linear = *this;
      linear.log = false;
      return linear.ticks(max_ticks);
    }
    return out;
  }
};

/// @brief The label of a speedup tick: "1.5x", "0.25x", "12x" (no trailing zeros).
inline std::string speedup_label(double v) {
  if (!std::isfinite(v)) return "n/a";
  std::string t = num(v, std::abs(v) >= 10 ? "%.0f" : "%.3f");
  if (t.find('.') != std::string::npos) {
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
  }
  return t + "x";
}

/// @brief The colour of a speedup: red below 1, white at 1, green above, on a log scale that
/// saturates at `saturate` (e.g. 4: 4x is full green, 0.25x full red).
inline std::string speedup_colour(double s, double saturate = 4) {
  if (!std::isfinite(s) || s <= 0) return "#9aa0a6";
  const double t = std::clamp(std::log(s) / std::log(std::max(saturate, 1.01)), -1.0, 1.0);
  int r = 255, g = 255, b = 255;
  if (t < 0) {
    g = static_cast<int>(255 * (1 + t * 0.78));
    b = g;
  } else {
    r = static_cast<int>(255 * (1 - t * 0.82));
    b = static_cast<int>(255 * (1 - t * 0.7));
    g = static_cast<int>(255 * (1 - t * 0.35));
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

/// @brief Estimated width in pixels of `text` at `font_px` (system sans-serif; a little generous).
inline double text_width(std::string_view text, double font_px) {
  double w = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;
    w += c == ' ' ? 0.3 : (c >= 'A' && c <= 'Z') ? 0.68 : (c >= '0' && c <= '9') ? 0.58 : 0.56;
  }
  return w * font_px;
}

/// @brief Places labels on rows so that none overlaps another on its row: each label (centred
/// or left-aligned at x, `width` wide) takes the first row where it keeps `gap` pixels from the
/// last label placed there. Returns each label's row, or -1 when `max_rows` are all taken (the
/// label is then left out: its marker and tooltip remain).
inline std::vector<int> place_labels(const std::vector<double>& x0, const std::vector<double>& width, int max_rows,
                                     double gap = 6) {
  std::vector<double> row_end(static_cast<std::size_t>(std::max(max_rows, 0)), -1e300);
  std::vector<int> rows(x0.size(), -1);
  for (std::size_t i = 0; i < x0.size(); ++i)
    for (int r = 0; r < max_rows; ++r)
      if (x0[i] >= row_end[static_cast<std::size_t>(r)] + gap) {
        rows[i] = r;
        row_end[static_cast<std::size_t>(r)] = x0[i] + width[i];
        break;
      }
  return rows;
}

}  // namespace socratic::detail::report
