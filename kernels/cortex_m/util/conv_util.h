// Shared parsing for the cortex_m convolution family: int[2] pairs, offsets/activation ranges and
// the 4-D NHWC view (n, h, w, c) of an activation tensor given logically as [N, C, H, W].
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/alias_contract.h"  // kOverlapSlabRows
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {
namespace int8 {

struct Pair {
  int32_t h, w;
};

// Reads an int[2] list whose entries lie in [lo, hi] (out of line: three per convolution or
// pooling op).
ETMCU_ARG_CHECKS inline bool read_pair(Span<EValue*> args, size_t i, int64_t lo, int64_t hi,
                                       Pair* out) {
  if (ETMCU_BAD_ARG(!is_int_list(args, i, 2))) return false;
  Span<const int64_t> v = args[i]->to_int_list();
  if (ETMCU_BAD_ARG(v[0] < lo || v[0] > hi || v[1] < lo || v[1] > hi)) return false;
  out->h = static_cast<int32_t>(v[0]);
  out->w = static_cast<int32_t>(v[1]);
  return true;
}

struct Nhwc {
  int32_t n, h, w, c;
};
inline Nhwc nhwc_of(const Tensor& t) {
  return Nhwc{t.sizes[0], t.sizes[2], t.sizes[3], t.sizes[1]};
}

// Output extent of a convolution along one axis; -1 when the window never fits (out of line: two
// per op, each with 64-bit arithmetic).
ETMCU_ARG_CHECKS inline int32_t conv_out_size(int32_t in, int32_t k, int32_t stride, int32_t pad,
                                              int32_t dil) {
  const int64_t span = static_cast<int64_t>(dil) * (k - 1) + 1;
  const int64_t num = static_cast<int64_t>(in) + 2 * static_cast<int64_t>(pad) - span;
  if (num < 0) return -1;
  // 0 <= num <= in + 2 * pad < 2^32 (in <= INT32_MAX, every caller's pad <= 65535) and stride
  // >= 1: a 32-bit unsigned division is exact (no __divdi3 / __aeabi_ldivmod)
  return static_cast<int32_t>(static_cast<uint32_t>(num) / static_cast<uint32_t>(stride) + 1);
}

// The job of quantized_conv2d (kc = Cin / groups); quantized_depthwise_conv2d's DwJob has the
// same layout with the depth multiplier in kc's place (check_conv_args fills both).
struct ConvJob {
  const int8_t* x;
  const int8_t* w;
  const int32_t* bias;
  const int32_t* mult;
  const int32_t* shift;
  int8_t* y;
  int8::Nhwc in, out;
  int32_t kh, kw, kc;
  int8::Pair stride, pad, dil;
  int32_t ioff, ooff, amin, amax;
  int8_t* buffer;  // the kernel's buffer (kernels/api/kernel_scratch.h), when it declared one
};

// Which check of check_conv_args failed: the index of the op's message (parse_conv2d,
// parse_depthwise_conv2d).
enum ConvCheck : int {
  kOldSchema,
  kArgCount,
  kArgKinds,
  kInt8,
  kRank,
  kChannelsLast,
  kWeightContiguous,
  kBatch,  // depthwise only
  kWeightShape,
  kOutSize,
  kBias,
  kPerChannel,
  kRanges,
};

// The argument checks of quantized_conv2d.out and quantized_depthwise_conv2d.out, one function
// for both (they differ in depthwise's depth_multiplier at 6, which moves every later argument by
// one, and in the weight's shape); fills the job, or returns the error and sets *why. The
// schemas are in parse_conv2d (conv2d.h) and parse_depthwise_conv2d (depthwise_conv2d.h).
ETMCU_ARG_CHECKS inline Error check_conv_args(Span<EValue*> args, bool depthwise, ConvJob* job,
                                              int* why) {
  const size_t d = depthwise ? 1 : 0;  // the later arguments' shift
  if (ETMCU_BAD_ARG(args.size() == 14 + d)) return failed(why, kOldSchema, Error::NotSupported);
  if (ETMCU_BAD_ARG(args.size() != 15 + d)) return failed(why, kArgCount, Error::InvalidArgument);
  Pair stride, pad, dil;
  // (read_pair reads the pair in every build, and checks it where the build checks arguments)
  if (ETMCU_BAD_ARG(!args_are(args, depthwise ? "TTtPPPIIITTIISTR" : "TTtPPPIITTIISTR")) ||
      !read_pair(args, 3, 1, 65535, &stride) || !read_pair(args, 4, 0, 65535, &pad) ||
      !read_pair(args, 5, 1, 65535, &dil))
    return failed(why, kArgKinds, Error::InvalidArgument);
  const Tensor& in = tensor(args, 0);
  const Tensor& w = tensor(args, 1);
  const Tensor& out = tensor(args, 13 + d);
  if (ETMCU_BAD_ARG(in.dtype != ScalarType::Char || w.dtype != ScalarType::Char ||
                    out.dtype != ScalarType::Char))
    return failed(why, kInt8, Error::InvalidType);
  if (ETMCU_BAD_ARG(in.dim != 4 || w.dim != 4 || out.dim != 4))
    return failed(why, kRank, Error::InvalidArgument);
  if (ETMCU_BAD_ARG(!is_nhwc_compatible(in) || !is_nhwc_compatible(out)))
    return failed(why, kChannelsLast, Error::InvalidArgument);
  if (ETMCU_BAD_ARG(!is_contiguous_like(w)))
    return failed(why, kWeightContiguous, Error::InvalidArgument);
  const Nhwc x = nhwc_of(in), y = nhwc_of(out);
  int64_t k3;  // conv: Cin / groups; depthwise: the depth multiplier
  if (depthwise) {
    if (ETMCU_BAD_ARG(x.n != 1 || y.n != 1)) return failed(why, kBatch, Error::InvalidArgument);
    k3 = int_arg(args, 6);
    if (ETMCU_BAD_ARG(w.sizes[0] != 1 || w.sizes[3] != y.c || k3 < 1 || k3 > y.c ||
                      static_cast<int64_t>(x.c) * k3 != y.c))
      return failed(why, kWeightShape, Error::InvalidArgument);
  } else {
    const int32_t kc = w.sizes[3];
    k3 = kc;
    if (ETMCU_BAD_ARG(w.sizes[0] != y.c || kc <= 0 || x.c < kc || x.c % kc != 0 ||
                      y.c % (x.c / kc) != 0 || x.n != y.n))
      return failed(why, kWeightShape, Error::InvalidArgument);
  }
  const int32_t kh = w.sizes[1], kw = w.sizes[2];
  if (ETMCU_BAD_ARG(conv_out_size(x.h, kh, stride.h, pad.h, dil.h) != y.h ||
                    conv_out_size(x.w, kw, stride.w, pad.w, dil.w) != y.w))
    return failed(why, kOutSize, Error::InvalidArgument);
  const bool has_bias = has_tensor(args, 2);
  if (ETMCU_BAD_ARG(has_bias && !is_int32_vector(tensor(args, 2), y.c)))
    return failed(why, kBias, Error::InvalidArgument);
  if (ETMCU_BAD_ARG(!valid_per_channel(tensor(args, 8 + d), tensor(args, 9 + d), y.c)))
    return failed(why, kPerChannel, Error::InvalidArgument);
  const int64_t in_off = int_arg(args, 6 + d), out_off = int_arg(args, 7 + d);
  const int64_t act_min = int_arg(args, 10 + d), act_max = int_arg(args, 11 + d);
  if (ETMCU_BAD_ARG(!offsets_in_range(args, 6 + d, 2) || !valid_activation(act_min, act_max)))
    return failed(why, kRanges, Error::InvalidArgument);

  ConvJob& j = *job;
  j.x = in.const_data_ptr<int8_t>();
  j.w = w.const_data_ptr<int8_t>();
  j.bias = has_bias ? tensor(args, 2).const_data_ptr<int32_t>() : nullptr;
  j.mult = tensor(args, 8 + d).const_data_ptr<int32_t>();
  j.shift = tensor(args, 9 + d).const_data_ptr<int32_t>();
  j.y = out.mutable_data_ptr<int8_t>();
  j.in = x;
  j.out = y;
  j.kh = kh;
  j.kw = kw;
  j.kc = static_cast<int32_t>(k3);
  j.stride = stride;
  j.pad = pad;
  j.dil = dil;
  j.ioff = static_cast<int32_t>(in_off);
  j.ooff = static_cast<int32_t>(out_off);
  j.amin = static_cast<int32_t>(act_min);
  j.amax = static_cast<int32_t>(act_max);
  return Error::Ok;
}

// Whether an op's out shares bytes with its input: only a memory plan below the naive floor
// puts it there (an offset-overlap contract, kernels/api/alias_contract.h).
inline bool bytes_overlap(const int8_t* x, const Nhwc& in, const int8_t* y, const Nhwc& out) {
  const size_t nx = static_cast<size_t>(in.n) * in.h * in.w * in.c;
  const size_t ny = static_cast<size_t>(out.n) * out.h * out.w * out.c;
  return x < y + ny && y < x + nx;
}

// The row contract of stride-1 depthwise layers whose out has the input's shape (multiplier 1,
// "same" padding; alias_contract.h dw_rows_distance): every variant writes the out in row order,
// top to bottom (the reference and the channel-block loops pixel by pixel, the plane path a strip
// of rows per channel, strips top to bottom), and an out row r only overwrites input row
// r - pad_h - 1 of the same channels, which no later output reads. The least input - out
// address then is (pad_h + 1) input rows, with no slabs; -1 where it does not apply.
template <class Job>
int64_t dw_rows_distance(const Job& j) {
  if (j.in.n != 1 || j.out.n != 1 || j.stride.h != 1 || j.stride.w != 1 || j.dil.h != 1 ||
      j.dil.w != 1 || j.in.h != j.out.h || j.in.w != j.out.w || j.in.c != j.out.c || j.pad.h < 0)
    return -1;
  return (static_cast<int64_t>(j.pad.h) + 1) * j.in.w * j.in.c;
}

// Whether the out begins at least dw_rows_distance before its input (the row contract holds).
template <class Job>
bool dw_rows_contract(const Job& j) {
  const int64_t d = dw_rows_distance(j);
  return j.y < j.x && d >= 0 && j.x - j.y >= d;
}

// Whether by_row_slabs applies (slab_distance's conditions): one image, and every output
// row's window starting above the input's last row (else a slab would see no input row).
template <class Job>
bool row_slabs_apply(const Job& j) {
  return j.in.n == 1 && j.out.n == 1 && j.out.h >= 1 &&
         static_cast<int64_t>(j.out.h - 1) * j.stride.h - j.pad.h < j.in.h;
}

// The job as slabs of kOverlapSlabRows output rows, each run(sub-job) reading input rows from its
// first window row on and writing its own output rows only: the loop order of the convolution
// family's offset-overlap contracts (slab_distance). Top to bottom for an out that begins
// before its input, bottom to top (`reverse`) for one that begins after it. A sub-job sees the
// input from its first needed row (or the top padding that is left) to the bottom.
// (`rows` per slab: 1 keeps the row order of stride-1 depthwise layers under their row contract,
// op_quantized_depthwise_conv2d.cpp.)
template <class Job, class Run>
void by_row_slabs(const Job& j, bool reverse, Run run, int32_t rows = kOverlapSlabRows) {
  const int32_t slabs = (j.out.h + rows - 1) / rows;
  for (int32_t i = 0; i < slabs; ++i) {
    const int32_t oy0 = (reverse ? slabs - 1 - i : i) * rows;
    Job s = j;
    const int32_t top = oy0 * j.stride.h - j.pad.h;  // < in.h (row_slabs_apply)
    const int32_t lo = top < 0 ? 0 : top;
    s.x = j.x + static_cast<size_t>(lo) * j.in.w * j.in.c;
    s.in.h = j.in.h - lo;
    s.pad.h = lo - top;
    s.out.h = j.out.h - oy0 < rows ? j.out.h - oy0 : rows;
    s.y = j.y + static_cast<size_t>(oy0) * j.out.w * j.out.c;
    run(s);
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
