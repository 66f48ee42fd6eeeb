#pragma once
// Decodes an 8-bit RGB or RGBA PNG (what Chromium's --screenshot writes) into pixels, so a test can
// tell a rendered page from a blank one.
#include <zlib.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace png_pixels {

struct Image {
  unsigned width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  ///< rows of width * channels bytes
  std::uint32_t rgb(unsigned x, unsigned y) const {
    const std::uint8_t* p = &pixels[(static_cast<std::size_t>(y) * width + x) * channels];
    return (std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2];
  }
};

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

inline Image decode(const std::string& file) {
  if (file.size() < 8 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) throw std::runtime_error("not a PNG");
  Image img;
  std::string idat;
  int bit_depth = 0, colour_type = 0;
  for (std::size_t pos = 8; pos + 8 <= file.size();) {
    const std::uint32_t len = be32(file, pos);
    const std::string type = file.substr(pos + 4, 4);
    if (pos + 12 + len > file.size()) throw std::runtime_error("truncated PNG chunk " + type);
    if (type == "IHDR") {
      img.width = be32(file, pos + 8);
      img.height = be32(file, pos + 12);
      bit_depth = std::uint8_t(file[pos + 16]);
      colour_type = std::uint8_t(file[pos + 17]);
    } else if (type == "IDAT") {
      idat.append(file, pos + 8, len);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + len;
  }
  if (bit_depth != 8 || (colour_type != 2 && colour_type != 6))
    throw std::runtime_error("only 8-bit RGB/RGBA PNGs are decoded here");
  img.channels = colour_type == 6 ? 4 : 3;
  const std::size_t stride = std::size_t(img.width) * img.channels;
  std::vector<std::uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) != Z_OK ||
      raw_len != raw.size())
    throw std::runtime_error("PNG image data does not inflate to its size");
  img.pixels.assign(stride * img.height, 0);
  const std::size_t bpp = img.channels;
  for (unsigned y = 0; y < img.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* in = &raw[y * (stride + 1) + 1];
    std::uint8_t* out = &img.pixels[y * stride];
    const std::uint8_t* up = y ? &img.pixels[(y - 1) * stride] : nullptr;
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? out[i - bpp] : 0, b = up ? up[i] : 0, c = (up && i >= bpp) ? up[i - bpp] : 0;
      int v = in[i];
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          v += (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
          break;
        }
        default: throw std::runtime_error("bad PNG filter");
      }
      out[i] = static_cast<std::uint8_t>(v);
    }
  }
  return img;
}

}  // namespace png_pixels
