// cortex_m::quantized_linear.out, optimised variants: the same results as ref/ (bit for bit), with
// the offsets folded out of the inner loop and several output features per pass over the input:
//   sum((x + ioff)(w + foff)) = sum(x w) + ioff sum(w) + foff sum(x) + K ioff foff   (mod 2^32)
// (with a kernel_sum, which already holds bias + ioff sum(w + foff): kernel_sum + sum(x w) +
// foff sum(x)). The dot products are the ISA's (isa/<isa>/int8_dot.h).
#include "int8_dot.h"  // isa/<isa>/int8_dot.h
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/linear.h"
#include "kernels/cortex_m/util/paths.h"
#include "pointwise.h"  // isa/<isa>/pointwise.h

namespace etmcu {
namespace kernels {
namespace {

using cmsis::wrap_add;
using cmsis::wrap_mul;

__attribute__((noinline)) void linear_rows(const int8::LinearJob& j, int32_t oc_begin) {
  constexpr int kOc = int8::kOc;
  const int32_t k = j.k;
  for (size_t b = 0; b < j.batches; ++b) {
    const int8_t* x = j.x + b * static_cast<size_t>(k);
    // foff * sum(x), and K * ioff * foff, once per input row
    const int32_t xterm = wrap_mul(j.foff, int8::row_sum(x, k));
    const int32_t kterm = wrap_mul(wrap_mul(k, j.ioff), j.foff);
    int8_t* y = j.y + b * static_cast<size_t>(j.nout);
    for (int32_t o = oc_begin; o < j.nout; o += kOc) {
      int32_t ch[kOc], d[kOc] = {};
      const int8_t* w[kOc];
      for (int i = 0; i < kOc; ++i) {
        ch[i] = o + i < j.nout ? o + i : j.nout - 1;  // past the end: repeat the last (not stored)
        w[i] = j.w + static_cast<size_t>(ch[i]) * k;
      }
      int8::dot(x, w, k, d);
      const int stored = j.nout - o < kOc ? j.nout - o : kOc;
      for (int i = 0; i < stored; ++i) {
        int32_t acc;
        if (j.ksum != nullptr) {
          acc = wrap_add(wrap_add(j.ksum[ch[i]], d[i]), xterm);
        } else {
          acc = wrap_add(j.bias ? j.bias[ch[i]] : 0, d[i]);
          acc = wrap_add(acc, wrap_mul(j.ioff, int8::row_sum(w[i], k)));
          acc = wrap_add(wrap_add(acc, xterm), kterm);
        }
        acc = wrap_add(cmsis::requantize(acc, j.mult, j.shift), j.ooff);
        y[ch[i]] = static_cast<int8_t>(cmsis::clamp(acc, j.amin, j.amax));
      }
    }
  }
}

// Blocks of four output features through the ISA's pointwise micro-kernel (pointwise.h), on
// ISAs and layers where that pays (kLinearBlocksMinFeatures: a one-pixel run is cheap, or the
// ISA loops over the blocks of a row in assembly): each input row is a one-pixel run, the
// offsets folded into the block's constants, full = bias + ioff * sum(w) + foff * sum(x) +
// K * ioff * foff (or kernel_sum + foff * sum(x)). Returns the number of leading features done
// for every row: 0 unless the contract holds for every block (one requantization for the layer:
// multiplier > 0, shift in [-20, -1]; every constant below 2^28), checked before anything is
// written.
// bias + ioff * sum(w) + xterm + kterm of feature o (or kernel_sum + xterm): out of line at the
// kernels' -O2, because linear_blocks is compiled for size and the weight sum is K bytes per
// feature (the autoencoder's 640-input layers).
// (The weight sum in a function of its own: with Xpulp's row_sum a call, the exporter's programs,
// whose kernel_sum skips it, would otherwise pay that call's frame for every feature: the
// autoencoder 11,700 cycles.)
__attribute__((noinline)) int32_t linear_weight_constant(const int8::LinearJob& j, int32_t o,
                                                         int32_t xterm, int32_t kterm) {
  const int32_t ws = int8::row_sum(j.w + static_cast<size_t>(o) * j.k, j.k);
  return wrap_add(wrap_add(wrap_add(j.bias ? j.bias[o] : 0, wrap_mul(j.ioff, ws)), xterm), kterm);
}
__attribute__((noinline)) int32_t linear_constant(const int8::LinearJob& j, int32_t o,
                                                  int32_t xterm, int32_t kterm) {
  if (j.ksum != nullptr) return wrap_add(j.ksum[o], xterm);
  return linear_weight_constant(j, o, xterm, kterm);
}

// An upper bound on |c[i]| - 1 over [0, n), n a multiple of 4: the OR of the one's-complement
// magnitudes (c ^ (c >> 31), below 2^31). At least the largest, at most twice it: where it is
// too loose, linear_blocks checks every feature exactly. 5.05 cycles a constant on the CV32E40P
// with Xpulp (8,420 for the autoencoder's 1,666 features a run), against 13.9 for the largest and
// smallest by branches.
ETMCU_HOT_LOOPS __attribute__((noinline)) uint32_t magnitudes_or(const int32_t* c, int32_t n) {
  uint32_t m = 0;
  for (const int32_t* end = c + n; c != end; c += 4)
    m |= static_cast<uint32_t>(c[0] ^ (c[0] >> 31)) | static_cast<uint32_t>(c[1] ^ (c[1] >> 31)) |
         static_cast<uint32_t>(c[2] ^ (c[2] >> 31)) | static_cast<uint32_t>(c[3] ^ (c[3] >> 31));
  return m;
}

// Features whose constants a layer without kernel_sum folds at a time (a multiple of 4: 32 B of
// linear_blocks' frame, which every program with linear layers has on its stack bound).
constexpr int32_t kLinearChunk = 8;

// Compiled for size: per call it bounds the constants and prepares one block per four features;
// the multiply-accumulates are the micro-kernel's (the op's code on the Cortex-M4: 1,288 -> 742 B;
// 248 more instructions for KWS's 64 -> 12 layer).
__attribute__((noinline, optimize("Os"))) int32_t linear_blocks(const int8::LinearJob& j) {
  const int32_t k = j.k;
  if (k % 4 != 0 || k >= int8::kPointwiseMaxRow || !cmsis::requant_4v_ok(j.mult, j.shift) ||
      ((reinterpret_cast<uintptr_t>(j.x) | reinterpret_cast<uintptr_t>(j.w)) & 3u) != 0)
    return 0;
  const int32_t blocks = j.nout / 4 * 4;
  const int32_t kterm = wrap_mul(wrap_mul(k, j.ioff), j.foff);
  // The bounds in 32-bit magnitudes (64-bit compares were a third of this function's code on
  // the CV32E40P): |int32| <= 2^31 fits a uint32, and a sum is formed only of terms below the
  // limit (2^28), so it cannot wrap.
  constexpr uint32_t kMax = int8::kPointwiseMaxFull;
  auto mag = [](int32_t v) { return v < 0 ? 0u - static_cast<uint32_t>(v) : uint32_t(v); };
  // sum(x) * foff bounded over the rows, sum(w) per feature: the constants' bound, once
  uint32_t xmax = 0;
  for (size_t r = 0; r < j.batches; ++r) {
    const uint32_t xs = mag(wrap_mul(j.foff, int8::row_sum(j.x + r * static_cast<size_t>(k), k)));
    if (xs > xmax) xmax = xs;
  }
  auto constant = [&](int32_t o, int32_t xterm) { return linear_constant(j, o, xterm, kterm); };
  // |ioff * sum(w) + K * ioff * foff| <= K * (128 |ioff| + |ioff foff|) (< 2^31: K below 2^14,
  // offsets within 255): with the largest bias (or kernel_sum) that bound usually settles it
  // without summing the weights; else sum them.
  const int32_t* cs = j.ksum != nullptr ? j.ksum : j.bias;
  const uint32_t cmax = cs != nullptr ? magnitudes_or(cs, blocks) + 1 : 0;
  const uint32_t ioff = mag(j.ioff), foff = mag(j.foff);
  const uint32_t wterm =
      j.ksum != nullptr ? 0 : static_cast<uint32_t>(k) * (128 * ioff + ioff * foff);
  if (cmax >= kMax || wterm >= kMax || xmax >= kMax || cmax + wterm + xmax >= kMax) {
    // exactly: c0 + xmax < kMax and c0 - xmax > -kMax for every feature
    if (xmax >= kMax) return 0;
    for (int32_t o = 0; o < blocks; ++o)
      if (mag(constant(o, 0)) + xmax >= kMax) return 0;
  }
  int8::PointwiseBlock b;
  int8::set_run(b, k);
  b.rows = 1;
  b.row_skip = 0;
  b.w_stride = k;
  b.x_step = k;
  b.pixels = 1;
  b.y_step = 1;
  b.amin = j.amin;
  b.amax = j.amax;
  b.neg_floor = int8::negative_floor(j.amin, j.ooff);
  b.w_row_skip = 0;
  for (int i = 0; i < 4; ++i)
    int8::set_requant<int8::kPointwiseRequant2v>(b, i, j.mult, j.shift, j.ooff);
  // The dyadic forms where the ISA's row kernel has them, else the frexp one (each behind its
  // path on those ISAs; without either, linear_rows gives the same bits)
  if constexpr (int8::kLinearDyadic) {
    if (!int8::set_linear_dyadic(b, j.mult, j.shift, j.ooff) &&
        !kernel_path_or_fallback(int8::kPathFrexp))
      return 0;
  }
  for (size_t r = 0; r < j.batches; ++r) {
    const int8_t* x = j.x + r * static_cast<size_t>(k);
    const int32_t xterm = wrap_mul(j.foff, int8::row_sum(x, k));
    b.x = x;
    b.w = j.w;
    b.y = j.y + r * static_cast<size_t>(j.nout);
    // The ISA's loop over the blocks, their constants kernel_sum + xterm; without kernel_sum
    // (upstream programs may lack it) folded here kLinearChunk at a time (one call site: an ISA
    // whose kernel is C inlines it once).
    int32_t folded[kLinearChunk];
    for (int32_t o = 0; o < blocks;) {
      int32_t n = blocks - o, add = xterm;
      const int32_t* consts = folded;
      if (j.ksum == nullptr) {
        n = n < kLinearChunk ? n : kLinearChunk;
        for (int32_t i = 0; i < n; ++i) folded[i] = linear_weight_constant(j, o + i, xterm, kterm);
        add = 0;
      } else {
        consts = j.ksum + o;
      }
      int8::pointwise_linear_row(b, consts, n / 4, add);
      b.w += static_cast<size_t>(n) * k;
      b.y += n;
      o += n;
    }
  }
  return blocks;
}

}  // namespace

Error cortex_m_quantized_linear_out(KernelContext& ctx, Span<EValue*> args) {
  int8::LinearJob job;
  const Error e = int8::parse_linear(ctx, args, &job);
  if (e != Error::Ok) return e;
  if (job.k >= int8::kMaxDotLength) {
    if (!kernel_path(int8::kPathLinearRef)) return kernel_path_missing(ctx);
    int8::linear_ref(job);
    return Error::Ok;
  }
  int32_t done = 0;
  if (int8::kLinearBlocksMinFeatures > 0 && job.nout >= int8::kLinearBlocksMinFeatures &&
      kernel_path_on(int8::kPathLinearBlocks)) {
    done = linear_blocks(job);
    if (done > 0) kernel_path_mark(int8::kPathLinearBlocks);
  }
  if (done < job.nout) {
    if (!kernel_path(int8::kPathLinearRows)) return kernel_path_missing(ctx);
    linear_rows(job, done);
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
