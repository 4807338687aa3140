// cortex_m::quantized_batch_matmul.out: int8 batched matmul with a pre-transposed rhs
// (arm_batch_matmul_s8): out[b,m,n] = requant(sum_k (lhs[b,m,k] + lhs_off) * (rhs[b,n,k] +
// rhs_off)).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"
#include "kernels/cortex_m/util/cmsis_math.h"

namespace etmcu {
namespace kernels {

// quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed,
//     int rhs_zero_point, int output_zero_point, int output_multiplier, int output_shift,
//     Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)
// lhs [B,M,K], rhs_transposed [B,N,K], out [B,M,N], all int8 contiguous. As upstream's exporter
// writes them, the two "zero point" arguments hold CMSIS-NN offsets (-zero_point) and
// output_zero_point is added; the result is clamped to int8. scratch uint8 (unused here).
Error cortex_m_quantized_batch_matmul_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() == 9)
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_batch_matmul.out: 7-argument schema without scratch "
                    "(before 2026-05-26) is not supported; re-export");
  if (args.size() != 10)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_batch_matmul.out: expected 8 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_int(args, 1) || !is_tensor(args, 2) || !is_int(args, 3) ||
      !is_int(args, 4) || !is_int(args, 5) || !is_int(args, 6) || !is_scratch(args, 7) ||
      !is_tensor(args, 8) || !is_return_of(args, 9, 8))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_batch_matmul.out: expected (lhs, lhs_offset, "
                    "rhs_transposed, rhs_offset, output_offset, out_mult, out_shift, scratch u8, "
                    "out)");
  const Tensor& a = tensor(args, 0);
  const Tensor& b = tensor(args, 2);
  const Tensor& out = tensor(args, 8);
  if (a.dtype != ScalarType::Char || b.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType,
                    "cortex_m::quantized_batch_matmul.out: lhs, rhs and out must be int8");
  if (a.dim != 3 || b.dim != 3 || out.dim != 3 || a.sizes[0] != b.sizes[0] ||
      a.sizes[2] != b.sizes[2] || out.sizes[0] != a.sizes[0] || out.sizes[1] != a.sizes[1] ||
      out.sizes[2] != b.sizes[1])
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_batch_matmul.out: need lhs [B,M,K], rhs [B,N,K], out "
                    "[B,M,N]");
  if (!is_contiguous_like(a) || !is_contiguous_like(b) || !is_contiguous_like(out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_batch_matmul.out: tensors must be contiguous");
  const int64_t loff = int_arg(args, 1), roff = int_arg(args, 3), ooff = int_arg(args, 4);
  if (!in_range(loff, -255, 255) || !in_range(roff, -255, 255) || !in_range(ooff, -255, 255) ||
      !valid_requant(int_arg(args, 5), int_arg(args, 6)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_batch_matmul.out: offsets, multiplier or shift out of "
                    "range");
  const int32_t B = a.sizes[0], M = a.sizes[1], K = a.sizes[2], N = b.sizes[1];
  const int32_t lo = static_cast<int32_t>(loff), ro = static_cast<int32_t>(roff);
  const int32_t oo = static_cast<int32_t>(ooff);
  const int32_t mult = static_cast<int32_t>(int_arg(args, 5));
  const int32_t shift = static_cast<int32_t>(int_arg(args, 6));
  const int8_t* pa = a.const_data_ptr<int8_t>();
  const int8_t* pb = b.const_data_ptr<int8_t>();
  int8_t* py = out.mutable_data_ptr<int8_t>();
  for (int32_t bi = 0; bi < B; ++bi) {
    const int8_t* ab = pa + static_cast<size_t>(bi) * M * K;
    const int8_t* bb = pb + static_cast<size_t>(bi) * N * K;
    for (int32_t m = 0; m < M; ++m)
      for (int32_t n = 0; n < N; ++n) {
        int32_t acc = 0;
        for (int32_t k = 0; k < K; ++k)
          acc = cmsis::wrap_add(acc, (ab[static_cast<size_t>(m) * K + k] + lo) *
                                         (bb[static_cast<size_t>(n) * K + k] + ro));
        *py++ = static_cast<int8_t>(
            cmsis::clamp(cmsis::wrap_add(cmsis::requantize(acc, mult, shift), oo), -128, 127));
      }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
