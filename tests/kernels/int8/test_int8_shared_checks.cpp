// The argument checkers two ops share (check_conv_args: quantized_conv2d / depthwise_conv2d;
// check_quant_args: quantize_per_tensor / dequantize_per_tensor): from a valid call, one argument
// broken at a time must give that op's own error and message, in that op's check order.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/api/kernel.h"

namespace etmcu {
namespace {

struct TensorBuf {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
  alignas(16) uint8_t bytes[1024] = {};
  Tensor t;
  TensorBuf(ScalarType st, std::vector<int32_t> s, std::vector<uint8_t> o)
      : sizes(std::move(s)), order(std::move(o)) {
    t.dtype = st;
    t.dim = static_cast<uint8_t>(sizes.size());
    t.sizes = sizes.data();
    t.dim_order = order.data();
    size_t n = 1;
    for (int32_t v : sizes) n *= static_cast<size_t>(v);
    t.nbytes = n * element_size(st);
    t.data = bytes;
  }
};

// Calls `op` and returns its error; *why gets the failure text ("" when none).
Error call(const char* op, std::vector<EValue>& v, std::string* why) {
  std::vector<EValue*> args;
  for (EValue& e : v) args.push_back(&e);
  OpFunction fn = find_kernel(op, std::strlen(op));
  EXPECT_NE(fn, nullptr) << op;
  KernelContext ctx;
  const Error e = fn(ctx, Span<EValue*>(args.data(), args.size()));
  *why = ctx.failure ? ctx.failure : "";
  return e;
}

// A valid 1x1 convolution (or depthwise, multiplier 1) of a [1, 4, 3, 3] NHWC int8 input.
struct Conv {
  bool dw;
  const std::vector<uint8_t> nhwc{0, 2, 3, 1}, contig{0, 1, 2, 3}, one{0};
  TensorBuf in{ScalarType::Char, {1, 4, 3, 3}, nhwc};
  TensorBuf w;
  TensorBuf mult{ScalarType::Int, {4}, one}, shift{ScalarType::Int, {4}, one};
  TensorBuf scratch{ScalarType::Byte, {0}, one};
  TensorBuf out{ScalarType::Char, {1, 4, 3, 3}, nhwc};
  TensorBuf bias_f32{ScalarType::Float, {4}, one};
  int64_t one_one[2] = {1, 1}, zero_zero[2] = {0, 0};
  explicit Conv(bool depthwise)
      : dw(depthwise),
        w(ScalarType::Char,
          depthwise ? std::vector<int32_t>{1, 1, 1, 4} : std::vector<int32_t>{4, 1, 1, 4}, contig) {
    for (int c = 0; c < 4; ++c) reinterpret_cast<int32_t*>(mult.bytes)[c] = 1 << 30;
  }
  std::vector<EValue> args() {
    std::vector<EValue> v = {EValue::from_tensor(&in.t),
                             EValue::from_tensor(&w.t),
                             EValue(),
                             EValue::from_span(Tag::ListInt, one_one, 2),
                             EValue::from_span(Tag::ListInt, zero_zero, 2),
                             EValue::from_span(Tag::ListInt, one_one, 2)};
    if (dw) v.push_back(EValue::from_int(1));  // depth_multiplier
    for (EValue e : {EValue::from_int(0), EValue::from_int(0), EValue::from_tensor(&mult.t),
                     EValue::from_tensor(&shift.t), EValue::from_int(-128), EValue::from_int(127),
                     EValue::from_tensor(&scratch.t), EValue::from_tensor(&out.t),
                     EValue::from_tensor(&out.t)})
      v.push_back(e);
    return v;
  }
  const char* op() const {
    return dw ? "cortex_m::quantized_depthwise_conv2d.out" : "cortex_m::quantized_conv2d.out";
  }
};

void expect_failure(const char* op, std::vector<EValue> v, Error want, const char* text) {
  std::string why;
  EXPECT_EQ(call(op, v, &why), want) << op << ": " << text;
  EXPECT_EQ(why.rfind(std::string(op).substr(0, std::strlen(op) - 4), 0), 0u) << why;
  EXPECT_NE(why.find(text), std::string::npos) << op << ": got \"" << why << "\", want " << text;
}

TEST(Int8SharedChecks, ConvAndDepthwiseKeepTheirOwnChecksAndTexts) {
  for (bool dw : {false, true}) {
    Conv c(dw);
    const size_t d = dw ? 1 : 0, out_i = 13 + d;
    std::string why;
    std::vector<EValue> ok = c.args();
    ASSERT_EQ(call(c.op(), ok, &why), Error::Ok) << c.op() << ": " << why;

    std::vector<EValue> v = c.args();
    v.pop_back();  // the schema before the scratch argument, one argument short
    v.pop_back();
    v.push_back(EValue::from_tensor(&c.out.t));
    expect_failure(c.op(), v, Error::NotSupported, "schema without scratch");
    v = c.args();
    v.pop_back();
    v.pop_back();
    expect_failure(c.op(), v, Error::InvalidArgument, dw ? "expected 14 arguments" : "expected 13");
    v = c.args();
    v[3] = EValue::from_span(Tag::ListInt, c.zero_zero, 2);  // stride 0
    expect_failure(c.op(), v, Error::InvalidArgument, "stride[2]>0");
    c.in.t.dtype = ScalarType::Float;
    c.in.t.nbytes = 36 * 4;
    expect_failure(c.op(), c.args(), Error::InvalidType, "input, weight and out must be int8");
    c.in.t.dtype = ScalarType::Char;
    c.in.t.nbytes = 36;
    c.in.t.dim_order = c.contig.data();  // NCHW with C = 4: not channels-last
    expect_failure(c.op(), c.args(), Error::InvalidArgument, "must be channels-last (NHWC)");
    c.in.t.dim_order = c.nhwc.data();
    if (!dw) {  // (a depthwise weight [1, 1, 1, 4] is contiguous in any dim order)
      const uint8_t swapped[4] = {3, 1, 2, 0};  // Cout innermost
      c.w.t.dim_order = swapped;
      expect_failure(c.op(), c.args(), Error::InvalidArgument, "weight must be contiguous");
      c.w.t.dim_order = c.contig.data();
    }
    c.w.sizes[3] = 3;  // conv: Cin / groups does not divide Cin; depthwise: Cout != 4
    expect_failure(c.op(), c.args(), Error::InvalidArgument,
                   dw ? "Cout == Cin * depth_multiplier" : "groups dividing Cin and Cout");
    c.w.sizes[3] = 4;
    c.in.sizes[0] = c.out.sizes[0] = 2;  // batch 2: conv accepts it, depthwise does not
    c.in.t.nbytes = c.out.t.nbytes = 72;
    v = c.args();
    if (dw) {
      expect_failure(c.op(), v, Error::InvalidArgument, "batch must be 1");
    } else {
      EXPECT_EQ(call(c.op(), v, &why), Error::Ok) << why;
    }
    c.in.sizes[0] = c.out.sizes[0] = 1;
    c.in.t.nbytes = c.out.t.nbytes = 36;
    c.out.sizes[2] = 2;
    expect_failure(c.op(), c.args(), Error::InvalidArgument, "out H/W do not match");
    c.out.sizes[2] = 3;
    v = c.args();
    v[2] = EValue::from_tensor(&c.bias_f32.t);
    expect_failure(c.op(), v, Error::InvalidArgument, "bias must be int32 [Cout]");
    reinterpret_cast<int32_t*>(c.shift.bytes)[3] = 31;
    expect_failure(c.op(), c.args(), Error::InvalidArgument, "shift in [-31, 30]");
    reinterpret_cast<int32_t*>(c.shift.bytes)[3] = 0;
    v = c.args();
    v[10 + d] = EValue::from_int(-129);  // activation_min below int8
    expect_failure(c.op(), v, Error::InvalidArgument, "offsets or activation range out of range");
    v = c.args();
    v[6 + d] = EValue::from_int(256);  // input_offset
    expect_failure(c.op(), v, Error::InvalidArgument, "offsets or activation range out of range");
    v = c.args();
    v[out_i + 1] = EValue::from_tensor(&c.in.t);  // the return value is not the out
    expect_failure(c.op(), v, Error::InvalidArgument, "expected (input, weight, bias?");
  }
}

TEST(Int8SharedChecks, QuantizeAndDequantizeKeepTheirOwnOrderAndTexts) {
  const std::vector<uint8_t> one{0};
  TensorBuf f32{ScalarType::Float, {4}, one}, i8{ScalarType::Char, {4}, one},
      i32{ScalarType::Int, {4}, one}, i8_5{ScalarType::Char, {5}, one};
  auto args = [](Tensor* in, double scale, int64_t zp, int64_t qmin, int64_t qmax, int64_t dtype,
                 Tensor* out) {
    return std::vector<EValue>{EValue::from_tensor(in),  EValue::from_double(scale),
                               EValue::from_int(zp),     EValue::from_int(qmin),
                               EValue::from_int(qmax),   EValue::from_int(dtype),
                               EValue::from_tensor(out), EValue::from_tensor(out)};
  };
  const char* q = "cortex_m::quantize_per_tensor.out";
  const char* dq = "cortex_m::dequantize_per_tensor.out";
  std::string why;
  std::vector<EValue> v = args(&f32.t, 0.5, 3, -128, 127, 1, &i8.t);
  ASSERT_EQ(call(q, v, &why), Error::Ok) << why;
  v = args(&i8.t, 0.5, 3, -128, 127, 1, &f32.t);
  ASSERT_EQ(call(dq, v, &why), Error::Ok) << why;

  // Both the float side and the dtype wrong: quantize names the float input, dequantize the dtype.
  expect_failure(q, args(&i32.t, 0.5, 0, -128, 127, 9, &i8.t), Error::InvalidType,
                 "input must be float32");
  expect_failure(dq, args(&i32.t, 0.5, 0, -128, 127, 9, &i8.t), Error::InvalidType,
                 "dtype must be int8 or int16 and match input");
  expect_failure(q, args(&f32.t, 0.5, 0, -128, 127, 2, &i8.t), Error::InvalidType,
                 "dtype must be int8 or int16 and match out");
  expect_failure(dq, args(&i8.t, 0.5, 0, -128, 127, 1, &i32.t), Error::InvalidType,
                 "out must be float32");
  expect_failure(q, args(&f32.t, 0.5, 0, -128, 127, 1, &i8_5.t), Error::InvalidArgument,
                 "out must have input's shape and layout");
  expect_failure(dq, args(&i8_5.t, 0.5, 0, -128, 127, 1, &f32.t), Error::InvalidArgument,
                 "out must have input's shape and layout");
  // quantize: any int32 zero point, qmin <= qmax; dequantize: the zero point within the range
  v = args(&f32.t, 0.5, 1000, -128, 127, 1, &i8.t);
  EXPECT_EQ(call(q, v, &why), Error::Ok) << why;
  expect_failure(dq, args(&i8.t, 0.5, 1000, -128, 127, 1, &f32.t), Error::InvalidArgument,
                 "need quant_min <= zero_point <= quant_max");
  expect_failure(q, args(&f32.t, 0.5, 0, 5, 4, 1, &i8.t), Error::InvalidArgument,
                 "quant_min/quant_max outside the dtype");
  expect_failure(dq, args(&i8.t, 0.5, 0, 5, 4, 1, &f32.t), Error::InvalidArgument,
                 "need quant_min <= zero_point <= quant_max");
  expect_failure(q, args(&f32.t, 0.5, int64_t(1) << 31, -128, 127, 1, &i8.t),
                 Error::InvalidArgument, "quant_min/quant_max outside the dtype");
  expect_failure(q, args(&f32.t, 0.0, 0, -128, 127, 1, &i8.t), Error::InvalidArgument,
                 "scale must be a positive finite float32");
  expect_failure(dq, args(&i8.t, -1.0, 0, -128, 127, 1, &f32.t), Error::InvalidArgument,
                 "scale must be a positive finite float32");
  v = args(&f32.t, 0.5, 0, -128, 127, 1, &i8.t);
  v.pop_back();
  expect_failure(q, v, Error::InvalidArgument, "expected 6 arguments + out");
  v = args(&i8.t, 0.5, 0, -128, 127, 1, &f32.t);
  v[1] = EValue::from_bool(true);
  expect_failure(dq, v, Error::InvalidArgument, "expected (input, scale, zero_point");
}

}  // namespace
}  // namespace etmcu
