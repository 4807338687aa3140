// cortex_m::pad.out: int8 constant pad of up to 4-D tensors (arm_pad_s8). Pads are given in
// physical order, right-aligned to 4 dims: [N, H, W, C] for channels-last tensors, else [d0, d1,
// d2, d3].
#include <stdint.h>
#include <string.h>

#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {

// One input row into its place in the output when it moves by a number of bytes that is not a
// multiple of 4 (a pad of 3-channel pixels: MobileNetV1's input), n >= 16, and the output does not
// start inside the row. memmove copies words only where both pointers are aligned (boards/common/
// mem_functions.cpp: Armv6-M has no unaligned accesses), so such rows went byte by byte: each
// output word is joined here from two aligned input words, shifted (that pad 185,993 -> 80,601
// cycles on the plain CV32E40P). It reads whole aligned words around the row's first and last bytes
// (never a word without one of its bytes, so nothing that could fault; hence no
// AddressSanitizer), each before the output word it fills is written (an output planned over the
// input, before it: right). A kernel path (copy_row): only programs whose pads shift rows link it.
__attribute__((noinline, no_sanitize_address)) static void copy_row_shifted(int8_t* dst,
                                                                            const int8_t* src,
                                                                            size_t n) {
  typedef uint32_t __attribute__((may_alias)) Word;
#if defined(__riscv)
  // The CV32E40P stores a misaligned word in hardware (two bus transactions: the simulator's
  // t06_misaligned reference program), so there the source's aligned words are stored as they
  // are: 1.07 cycles a byte against 2.14 shifted (MobileNetV1's input pad: 59,760 -> 29,880
  // cycles with Xpulp). Each pair of words is read before it is written, the output never past
  // the bytes read. (The stores written out: GCC splits a store it cannot prove aligned into
  // four byte stores.)
  for (; (reinterpret_cast<uintptr_t>(src) & 3u) != 0; --n) *dst++ = *src++;
  for (; n >= 8; n -= 8, dst += 8, src += 8) {
    const uint32_t a = *reinterpret_cast<const Word*>(src),
                   b = *reinterpret_cast<const Word*>(src + 4);
    __asm__ volatile("sw %1, 0(%0)\n\tsw %2, 4(%0)" : : "r"(dst), "r"(a), "r"(b) : "memory");
  }
  for (; n != 0; --n) *dst++ = *src++;
#else
  for (; (reinterpret_cast<uintptr_t>(dst) & 3u) != 0; --n) *dst++ = *src++;
  const unsigned k = reinterpret_cast<uintptr_t>(src) & 3u;  // (not 0: the offsets differ)
  const Word* ws = reinterpret_cast<const Word*>(src - k);
  const unsigned lo = 8 * k, hi = 32 - lo;
  uint32_t a = *ws++;
  for (; n >= 4; n -= 4, dst += 4, src += 4) {
    const uint32_t b = *ws++;
    *reinterpret_cast<Word*>(dst) = a >> lo | b << hi;  // (little-endian: later bytes higher)
    a = b;
  }
  for (; n != 0; --n) *dst++ = *src++;
#endif
}

// memmove, or copy_row_shifted where it applies (memmove gives the same bytes without the path).
inline void copy_row(int8_t* dst, const int8_t* src, size_t n) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (n >= 16 && ((d ^ s) & 3u) != 0 && !(d > s && d < s + n) &&
      kernel_path_or_fallback(int8::kPathPadShiftedRows))
    copy_row_shifted(dst, src, n);
  else
    memmove(dst, src, n);
}

// pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, Tensor(a!) out)
// Compiled for size: its loops are memcpy/memset of whole rows (1,390 -> 890 B on the CV32E40P).
// (The attribute on a declaration of its own: tools/bundle finds kernels by "Error <name>(".)
ETMCU_ARG_CHECKS Error cortex_m_pad_out(KernelContext& ctx, Span<EValue*> args);

Error cortex_m_pad_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (ETMCU_BAD_ARG(args.size() != 6))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::pad.out: expected 4 arguments + out (+ return)");
  if (ETMCU_BAD_ARG(!args_are(args, "TLLITR") || args[1]->payload.as_span.size != 4 ||
                    args[2]->payload.as_span.size != 4))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::pad.out: expected (input, pre_pad[4], post_pad[4], pad_value, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 4);
  if (ETMCU_BAD_ARG(in.dtype != ScalarType::Char || out.dtype != ScalarType::Char))
    return ctx.fail(Error::InvalidType, "cortex_m::pad.out: only int8 tensors are supported");
  if (ETMCU_BAD_ARG(in.dim < 1 || in.dim > 4 || out.dim != in.dim))
    return ctx.fail(Error::InvalidArgument, "cortex_m::pad.out: rank must be 1..4 and match out");
  const int64_t value = int_arg(args, 3);
  if (ETMCU_BAD_ARG(value < -128 || value > 127))
    return ctx.fail(Error::InvalidArgument, "cortex_m::pad.out: pad_value outside int8");
  // Logical dim of each physical position (right-aligned to 4).
  const bool nhwc = in.dim == 4 && is_nhwc_compatible(in);
  if (ETMCU_BAD_ARG(nhwc ? !is_nhwc_compatible(out)
                         : (!is_contiguous_like(in) || !is_contiguous_like(out))))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::pad.out: tensors must be channels-last (4-D) or contiguous");
  static constexpr int kNhwc[4] = {0, 2, 3, 1};
  const int off = 4 - in.dim;
  int32_t dims[4] = {1, 1, 1, 1}, odims[4] = {1, 1, 1, 1}, pre[4], post[4];
  Span<const int64_t> pre_l = args[1]->to_int_list(), post_l = args[2]->to_int_list();
  for (int i = 0; i < 4; ++i) {
    if (ETMCU_BAD_ARG(static_cast<uint64_t>(pre_l[i]) > 65535 ||
                      static_cast<uint64_t>(post_l[i]) > 65535))
      return ctx.fail(Error::InvalidArgument, "cortex_m::pad.out: pads must be in [0, 65535]");
    pre[i] = static_cast<int32_t>(pre_l[i]);
    post[i] = static_cast<int32_t>(post_l[i]);
  }
  for (int i = 0; i < in.dim; ++i) {
    const int src = nhwc ? kNhwc[i] : i;
    dims[off + i] = in.sizes[src];
    odims[off + i] = out.sizes[src];
  }
  for (int i = 0; i < 4; ++i)
    if (ETMCU_BAD_ARG(odims[i] != dims[i] + pre[i] + post[i]))
      return ctx.fail(Error::InvalidArgument,
                      "cortex_m::pad.out: out size != input + pre_pad + post_pad (physical order)");
  // An inner dim without padding joins the next one out (as many times as that holds): NHWC pads
  // of H and W then copy whole rows of W * C bytes instead of C bytes per call (MobileNetV1's
  // 3-channel input pad went from 36 cycles per byte to about 6 on the CV32E40P).
  for (int merged = 0; merged < 3 && pre[3] == 0 && post[3] == 0 && dims[2] * dims[3] != 0;
       ++merged) {
    const int32_t inner = dims[3];
    dims[3] *= dims[2];
    odims[3] *= odims[2];
    pre[3] = pre[2] * inner;
    post[3] = post[2] * inner;
    for (int i = 2; i > 0; --i) {
      dims[i] = dims[i - 1];
      odims[i] = odims[i - 1];
      pre[i] = pre[i - 1];
      post[i] = post[i - 1];
    }
    dims[0] = odims[0] = 1;
    pre[0] = post[0] = 0;
  }
  const int8_t* x = in.const_data_ptr<int8_t>();
  int8_t* y = out.mutable_data_ptr<int8_t>();
  const int8_t fill = static_cast<int8_t>(value);
  // Walk the output rows of the innermost dim; copy the input row or fill.
  const size_t row = static_cast<size_t>(odims[3]);
  for (int32_t a = 0; a < odims[0]; ++a) {
    for (int32_t b = 0; b < odims[1]; ++b) {
      for (int32_t c = 0; c < odims[2]; ++c) {
        int8_t* dst = y + ((static_cast<size_t>(a) * odims[1] + b) * odims[2] + c) * row;
        const int32_t ia = a - pre[0], ib = b - pre[1], ic = c - pre[2];
        if (ia < 0 || ia >= dims[0] || ib < 0 || ib >= dims[1] || ic < 0 || ic >= dims[2]) {
          memset(dst, fill, row);
          continue;
        }
        memset(dst, fill, static_cast<size_t>(pre[3]));
        const int8_t* src = x + ((static_cast<size_t>(ia) * dims[1] + ib) * dims[2] + ic) * dims[3];
        copy_row(dst + pre[3], src, static_cast<size_t>(dims[3]));
        memset(dst + pre[3] + dims[3], fill, static_cast<size_t>(post[3]));
      }
    }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
