// cortex_m::quantized_avg_pool2d.out, optimised variants: the same results as ref/ (bit for bit).
// Channel counts that are a multiple of 4 on word-aligned rows (every pooling layer of the zoo
// and KWS's global pool) take the ISA's micro-kernel (pool_sums.h: four channels' window sums per
// word load), windows of more taps than it allows and other shapes the reference loop.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/avg_pool.h"
#include "kernels/cortex_m/util/paths.h"
#include "pool_sums.h"

namespace etmcu {
namespace kernels {

namespace {

__attribute__((noinline)) void avg_pool_pixel_words(const int8::AvgPoolJob& j, int32_t n,
                                                    int32_t oy, int32_t ox) {
  const int32_t c_all = j.in.c, w_in = j.in.w;
  int8_t* py = j.y + ((static_cast<size_t>(n) * j.out.h + oy) * j.out.w + ox) * c_all;
  int32_t ky0, ky1, kx0, kx1;
  int8::pool_window(j, oy, ox, &ky0, &ky1, &kx0, &kx1);
  const int32_t rows = ky1 - ky0, cols = kx1 - kx0, count = rows * cols;
  const int8_t* p = j.x + ((static_cast<size_t>(n) * j.in.h + ky0) * w_in + kx0) * c_all;
  for (int32_t c = 0; c < c_all; c += 4) {
    int32_t sums[4];
    int8::window_sums4(p + c, rows, cols, w_in * c_all, c_all, sums);
    // the four lanes in one loop (four inlined divisions with their rounding were ~150 B more)
    for (int k = 0; k < 4; ++k) py[c + k] = int8::pool_mean(sums[k], count);
  }
}

}  // namespace

Error cortex_m_quantized_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::AvgPoolJob j;
  const Error e = int8::parse_avg_pool(ctx, args, &j);
  if (e != Error::Ok) return e;
  const bool words = j.in.c % 4 == 0 && (reinterpret_cast<uintptr_t>(j.x) & 3u) == 0 &&
                     static_cast<int64_t>(j.k.h) * j.k.w <= int8::kPoolMaxTaps &&
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
