// The int8 kernels' paths (kernels/api/kernel_paths.h): one bit per branch that a per-program
// firmware may leave out. docs/bare-metal.md lists them; keep the numbers
// stable (tools/firmware/ stores masks built from them).
#pragma once
#include <stdint.h>

#include "kernels/api/kernel.h"
#include "kernels/api/kernel_paths.h"

// The hot C functions of the RV32 paths start on a word: their cycles on the CV32E40P depend on
// their address modulo 4 (where 32-bit instructions and branch targets fall against the fetched
// words), which otherwise moved with the size of unrelated code before them (upstream KWS with
// Xpulp: after a change in the argument checks, four of them ran the same instructions in 13,600
// more cycles; etmcu-sim --profile). At most 2 bytes of padding each.
// ETMCU_HOT_LOOPS also starts the function's loops on a word (GCC pads before them with c.nop): a
// taken branch to a 32-bit instruction at a 2-byte offset costs a fetch cycle more. ResNet-8's
// quantized add (add_same_32) ran its element loop's back branch in 4 cycles instead of 3 after
// code before it grew by 6 bytes: +17,254 cycles.
#if defined(__riscv)
#define ETMCU_HOT_ALIGN __attribute__((aligned(4)))
#define ETMCU_HOT_LOOPS __attribute__((aligned(4), optimize("align-loops=4")))
#else
#define ETMCU_HOT_ALIGN
#define ETMCU_HOT_LOOPS
#endif

namespace etmcu {
namespace kernels {
namespace int8 {

enum Path : uint32_t {
  kPathConvPointwise = 0,  // 1x1 stride-1 convolutions in strips (pointwise_strips)
  kPathConvPixelsReverse,  // 1x1 with a long dot product over its own input, last pixel first
  kPathConvInterior,       // NxM windows inside the image: the ISA's 4-channel block kernel
  kPathConvIm2col,         // the border windows (or every window) gathered into a column
  kPathConvRows,           // channels the block kernels leave: dot products along window rows
  kPathConvRef,            // the reference loop (dilation, grouped, very long windows)
  kPathDwPlanes,           // depthwise: per-channel planes and the ISA's row kernels
  kPathDwBlocks,           // depthwise: channel blocks over NHWC windows (MVE: lanes, any window)
  kPathDwRef,              // depthwise: the reference loop (dilation, other multipliers)
  kPathLinearBlocks,       // linear: the 4-feature block kernel
  kPathLinearRows,         // linear: dot products per feature
  kPathLinearRef,          // linear: the reference loop (very long rows)
  kPathAvgPoolWords,       // average pool: four channels per word
  kPathAvgPoolRef,         // average pool: the reference loop
  kPathConvSlabs,          // convolution over its own input (an overlapping plan): slabs of rows
  kPathDwSlabs,            // depthwise over its own input: slabs of rows
  kPathConvPointwiseDot,   // 1x1 channels the 4-channel micro-kernel cannot take: dot products
  kPathDwLanes3x3,         // depthwise, MVE lanes: 3x3 windows, multiplier 1; plain RV32: the
                           // dyadic form of interior blocks without a fused ReLU; Xpulp:
                           // unpadded 3x3 stride-2 layers from NHWC (depthwise_s2.S)
  kPathDwLanesTail,        // depthwise, MVE lanes: the last channels past a multiple of 4;
                           // plain RV32: stride-2 rows in pairs, the 3 x 3 output planes and
                           // the stride-1 rows straight from NHWC (util/depthwise_direct.h);
                           // Xpulp: the 3 x 3 output planes at stride 1 (depthwise_small.S)
  kPathDwLanesMult4,       // depthwise multipliers of 4: MVE's lanes; the four-channel row
                           // kernel of the ISAs that also have the one-channel one (planes)
  kPathMicroMultiRun,   // Arm 4-channel micro-kernels (DSP widened, MVE 16-byte steps): windows of
                        // several runs; plain RV32: a pass's rows of 9 bytes in their subroutine
  kPathMicroUnpacked,   // Arm DSP 4-channel micro-kernel: outputs clamped one by one; plain
                        // RV32: the stride-1 form of the 9-byte rows' subroutine
  kPathDwK3Stride2,     // depthwise, Xpulp: the 3x3 channel loop's stride-2 subroutines
  kPathPadShiftedRows,  // pad: rows moved by other than whole words, joined from shifted words
  kPathCount,
  // (bits 0-23 are full; 30 and 31 are the portable kernels' spare ones)
  // Xpulp's two requantization forms, each in functions of its own: the dyadic one (one mul;
  // cmsis::requant_dyadic) and the frexp one (the 4v form's mulh), for the 3x3 depthwise channel
  // loop's lines and the pointwise micro-kernel (not its one-pixel function, which linear layers
  // call directly); a program links the forms its layers use.
  kPathDyadic = 30,
  kPathFrexp = 31,
};
static_assert(kPathCount <= 24,
              "bits 24-31 are the portable kernels' (kernels/api/kernel_paths.h)");

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
