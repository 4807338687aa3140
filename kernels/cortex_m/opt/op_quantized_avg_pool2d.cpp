// cortex_m::quantized_avg_pool2d.out, optimised variants: the same results as ref/ (bit for bit).
// Channel counts that are a multiple of 4 on word-aligned rows (every pooling layer of the zoo
// and KWS's global pool) sum four channels per word load in two registers of 16-bit lanes
// (SWAR, plain C for every ISA): each int8 is biased to 0..255 (xor 0x80), the even and the odd
// bytes are masked into separate lane pairs, and a window of up to 257 taps cannot carry across
// a lane (257 * 255 < 2^16). About 2.5 instructions per input byte against 10 for the reference's
// strided per-channel loop. Other shapes take the reference loop.
#include <string.h>

#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/avg_pool.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {

namespace {

constexpr int32_t kMaxLaneTaps = 257;

inline uint32_t load_word(const int8_t* p) {
  uint32_t v;
  memcpy(&v, __builtin_assume_aligned(p, 4), 4);
  return v;
}

__attribute__((noinline)) void avg_pool_pixel_words(const int8::AvgPoolJob& j, int32_t n,
                                                    int32_t oy, int32_t ox) {
  const int32_t c_all = j.in.c, w_in = j.in.w;
  const int8_t* xb = j.x + static_cast<size_t>(n) * j.in.h * w_in * c_all;
  int8_t* py = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w + ox) * c_all;
  int32_t ky0, ky1, kx0, kx1;
  int8::pool_window(j, oy, ox, &ky0, &ky1, &kx0, &kx1);
  const int32_t count = (ky1 - ky0) * (kx1 - kx0), cols = kx1 - kx0;
  const int32_t bias = 128 * count;
  for (int32_t c = 0; c < c_all; c += 4) {
    uint32_t even = 0, odd = 0;  // lanes: channels c, c + 2 / c + 1, c + 3
    for (int32_t iy = ky0; iy < ky1; ++iy) {
      const int8_t* p = xb + (static_cast<size_t>(iy) * w_in + kx0) * c_all + c;
      for (int32_t i = 0; i < cols; ++i, p += c_all) {
        const uint32_t v = load_word(p) ^ 0x80808080u;
        even += v & 0x00ff00ffu;
        odd += (v >> 8) & 0x00ff00ffu;
      }
    }
    // the four lanes in one loop (four inlined divisions with their rounding were ~150 B more)
    const uint32_t lanes[4] = {even & 0xffffu, odd & 0xffffu, even >> 16, odd >> 16};
    for (int k = 0; k < 4; ++k)
      py[c + k] = int8::pool_mean(static_cast<int32_t>(lanes[k]) - bias, count);
  }
}

}  // namespace

Error cortex_m_quantized_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::AvgPoolJob j;
  const Error e = int8::parse_avg_pool(ctx, args, &j);
  if (e != Error::Ok) return e;
  const bool words = j.in.c % 4 == 0 && (reinterpret_cast<uintptr_t>(j.x) & 3u) == 0 &&
                     static_cast<int64_t>(j.k.h) * j.k.w <= kMaxLaneTaps &&
                     kernel_path(int8::kPathAvgPoolWords);
  if (!words && !kernel_path(int8::kPathAvgPoolRef)) return kernel_path_missing(ctx);
  for (int32_t n = 0; n < j.in.n; ++n)
    for (int32_t oy = 0; oy < j.out.h; ++oy)
      for (int32_t ox = 0; ox < j.out.w; ++ox) {
        if (words)
          avg_pool_pixel_words(j, n, oy, ox);
        else
          int8::avg_pool_pixel_ref(j, n, oy, ox);
      }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
