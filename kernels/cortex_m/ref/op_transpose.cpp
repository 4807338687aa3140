// cortex_m::transpose.out: int8 permutation of up to 4 dims (arm_transpose_s8) on contiguous
// tensors: out.sizes[i] = input.sizes[perm[i]].
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {

// transpose.out(Tensor input, int[] perm, *, Tensor(a!) out) -> Tensor(a!)
Error cortex_m_transpose_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 4)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::transpose.out: expected 2 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_int_list_any(args, 1) || !is_tensor(args, 2) ||
      !is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "cortex_m::transpose.out: expected (input, perm, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 2);
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::transpose.out: tensors must be int8");
  Span<const int64_t> perm = args[1]->to_int_list();
  const int rank = in.dim;
  if (rank < 1 || rank > 4 || out.dim != rank || perm.size() != static_cast<size_t>(rank))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::transpose.out: rank must be 1..4 and match perm and out");
  if (!is_contiguous_like(in) || !is_contiguous_like(out))
    return ctx.fail(Error::InvalidArgument, "cortex_m::transpose.out: tensors must be contiguous");
  uint32_t seen = 0;
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || (seen & (1u << perm[i])) != 0)
      return ctx.fail(Error::InvalidArgument, "cortex_m::transpose.out: perm is not a permutation");
    seen |= 1u << perm[i];
    if (out.sizes[i] != in.sizes[perm[i]])
      return ctx.fail(Error::InvalidArgument,
                      "cortex_m::transpose.out: out.sizes[i] must equal input.sizes[perm[i]]");
  }
  if (in.data == out.data && in.numel() > 1)
    return ctx.fail(Error::InvalidArgument, "cortex_m::transpose.out: in-place is not supported");
  // Input strides seen from out's dims, padded to 4.
  int64_t in_st[4] = {0, 0, 0, 0}, st[4];
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_st[d] = s;
    s *= in.sizes[d];
  }
  int32_t osz[4] = {1, 1, 1, 1};
  for (int i = 0; i < 4; ++i) st[i] = 0;
  for (int i = 0; i < rank; ++i) {
    osz[4 - rank + i] = out.sizes[i];
    st[4 - rank + i] = in_st[perm[i]];
  }
  const int8_t* x = in.const_data_ptr<int8_t>();
  int8_t* y = out.mutable_data_ptr<int8_t>();
  for (int32_t a = 0; a < osz[0]; ++a)
    for (int32_t b = 0; b < osz[1]; ++b)
      for (int32_t c = 0; c < osz[2]; ++c)
        for (int32_t d = 0; d < osz[3]; ++d)
          *y++ = x[a * st[0] + b * st[1] + c * st[2] + d * st[3]];
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
