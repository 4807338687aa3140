// Randomized layout tests: random shapes, broadcasting and dim orders (every operand its own
// permutation) for binary ops, where, reductions, permute and cat, checked against naive
// logical-index references written here.
#include <algorithm>
#include <random>

#include "tests/kernels/kernel_test_util.h"

namespace etmcu {
namespace {
using test::Args;

std::vector<uint8_t> random_order(size_t dim, std::mt19937& rng) {
  std::vector<uint8_t> o = test::contiguous_order(dim);
  std::shuffle(o.begin(), o.end(), rng);
  return o;
}

std::vector<size_t> unravel(size_t i, const std::vector<int32_t>& sizes) {
  std::vector<size_t> idx(sizes.size());
  for (int d = int(sizes.size()) - 1; d >= 0; --d) {
    idx[d] = i % sizes[d];
    i /= sizes[d];
  }
  return idx;
}

// Logical row-major index into `sizes` of the broadcast source for out index `oidx`.
size_t broadcast_index(const std::vector<size_t>& oidx, const std::vector<int32_t>& sizes) {
  size_t lead = oidx.size() - sizes.size(), flat = 0;
  for (size_t d = 0; d < sizes.size(); ++d)
    flat = flat * sizes[d] + (sizes[d] == 1 ? 0 : oidx[d + lead]);
  return flat;
}

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(-50, 50);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng) * 0.25f;
  return v;
}

TEST(RandomLayouts, BinaryBroadcastAnyDimOrder) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 1 + rng() % 4;
    std::vector<int32_t> out_sizes(rank);
    for (auto& s : out_sizes) s = 1 + rng() % 3;
    auto operand = [&]() {
      int r = 1 + rng() % rank;
      std::vector<int32_t> s(out_sizes.end() - r, out_sizes.end());
      for (auto& v : s)
        if (rng() % 3 == 0) v = 1;
      return s;
    };
    auto as = operand(), bs = operand();
    // The out shape is the broadcast of a and b (some out dims may collapse to 1).
    const int orank = int(std::max(as.size(), bs.size()));
    std::vector<int32_t> os(orank, 1);
    for (int d = 0; d < orank; ++d) {
      int da = d - (orank - int(as.size())), db = d - (orank - int(bs.size()));
      if (da >= 0) os[d] = std::max(os[d], as[da]);
      if (db >= 0) os[d] = std::max(os[d], bs[db]);
    }
    auto av = random_values(test::numel_of(as), rng), bv = random_values(test::numel_of(bs), rng);
    const int op = rng() % 3;  // add with alpha, sub, mul
    Args a;
    a.tensor<float>(as, av, random_order(as.size(), rng));
    a.tensor<float>(bs, bv, random_order(bs.size(), rng));
    if (op != 2) a.add_double(op == 0 ? 0.5 : 1.0);
    const size_t out_i = a.size();
    a.empty(os, ScalarType::Float, random_order(os.size(), rng));
    a.repeat(out_i);
    OpFunction fn =
        op == 0 ? kernels::aten_add_out : (op == 1 ? kernels::aten_sub_out : kernels::aten_mul_out);
    ASSERT_EQ(a.call(fn), Error::Ok) << a.ctx.failure;
    auto got = a.values<float>(out_i);
    for (size_t i = 0; i < got.size(); ++i) {
      auto idx = unravel(i, os);
      double x = av[broadcast_index(idx, as)], y = bv[broadcast_index(idx, bs)];
      double want = op == 0 ? x + 0.5 * y : (op == 1 ? x - y : x * y);
      ASSERT_EQ(got[i], float(want)) << "iter " << iter << " i " << i;
    }
  }
}

TEST(RandomLayouts, WhereThreeWay) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 100; ++iter) {
    const int rank = 1 + rng() % 3;
    std::vector<int32_t> os(rank);
    for (auto& s : os) s = 1 + rng() % 3;
    auto shrink = [&]() {
      std::vector<int32_t> s = os;
      for (auto& v : s)
        if (rng() % 2) v = 1;
      return s;
    };
    auto cs = shrink(), xs = shrink(), ys = shrink();
    for (int d = 0; d < rank; ++d) os[d] = std::max({cs[d], xs[d], ys[d]});  // the broadcast shape
    std::vector<bool> cv(test::numel_of(cs));
    for (size_t i = 0; i < cv.size(); ++i) cv[i] = rng() % 2;
    auto xv = random_values(test::numel_of(xs), rng), yv = random_values(test::numel_of(ys), rng);
    Args a;
    a.tensor<bool>(cs, cv, random_order(rank, rng));
    a.tensor<float>(xs, xv, random_order(rank, rng));
    a.tensor<float>(ys, yv, random_order(rank, rng));
    a.empty(os, ScalarType::Float, random_order(rank, rng));
    a.repeat(3);
    ASSERT_EQ(a.call(kernels::aten_where_self_out), Error::Ok) << a.ctx.failure;
    auto got = a.values<float>(3);
    for (size_t i = 0; i < got.size(); ++i) {
      auto idx = unravel(i, os);
      float want = cv[broadcast_index(idx, cs)] ? xv[broadcast_index(idx, xs)]
                                                : yv[broadcast_index(idx, ys)];
      ASSERT_EQ(got[i], want) << "iter " << iter;
    }
  }
}

TEST(RandomLayouts, SumOverRandomDims) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 150; ++iter) {
    const int rank = 1 + rng() % 4;
    std::vector<int32_t> s(rank);
    for (auto& v : s) v = 1 + rng() % 4;
    std::vector<int64_t> dims;
    std::vector<bool> red(rank, false);
    for (int d = 0; d < rank; ++d)
      if (rng() % 2) dims.push_back(rng() % 2 ? d : d - rank), red[d] = true;
    if (dims.empty()) std::fill(red.begin(), red.end(), true);  // [] reduces everything
    const bool keepdim = rng() % 2;
    std::vector<int32_t> os;
    for (int d = 0; d < rank; ++d)
      if (!red[d])
        os.push_back(s[d]);
      else if (keepdim)
        os.push_back(1);
    auto xv = random_values(test::numel_of(s), rng);
    const bool mean = rng() % 2;
    Args a;
    a.tensor<float>(s, xv, random_order(rank, rng));
    a.add_int_list(dims);
    a.add_bool(keepdim);
    a.add_none();
    a.empty(os, ScalarType::Float, random_order(os.size(), rng));
    a.repeat(4);
    ASSERT_EQ(a.call(mean ? kernels::aten_mean_out : kernels::aten_sum_IntList_out), Error::Ok)
        << a.ctx.failure;
    std::vector<double> want(test::numel_of(os), 0.0);
    size_t count = 1;
    for (int d = 0; d < rank; ++d)
      if (red[d]) count *= s[d];
    for (size_t i = 0; i < xv.size(); ++i) {
      auto idx = unravel(i, s);
      size_t flat = 0;
      for (int d = 0, od = 0; d < rank; ++d) {
        if (red[d] && !keepdim) continue;
        flat = flat * os[od] + (red[d] ? 0 : idx[d]);
        ++od;
      }
      want[flat] += xv[i];
    }
    auto got = a.values<float>(4);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], mean ? want[i] / count : want[i], 1e-5) << "iter " << iter;
  }
}

TEST(RandomLayouts, PermuteAndCat) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 100; ++iter) {
    const int rank = 1 + rng() % 4;
    std::vector<int32_t> s(rank);
    for (auto& v : s) v = 1 + rng() % 4;
    auto xv = random_values(test::numel_of(s), rng);
    std::vector<int64_t> perm(rank);
    for (int d = 0; d < rank; ++d) perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int32_t> ps(rank);
    for (int d = 0; d < rank; ++d) ps[d] = s[perm[d]];
    Args a;
    a.tensor<float>(s, xv, random_order(rank, rng));
    a.add_int_list(perm);
    a.empty(ps, ScalarType::Float, random_order(rank, rng));
    a.repeat(2);
    ASSERT_EQ(a.call(kernels::aten_permute_copy_out), Error::Ok);
    auto got = a.values<float>(2);
    for (size_t i = 0; i < got.size(); ++i) {
      auto oidx = unravel(i, ps);
      std::vector<size_t> iidx(rank);
      for (int d = 0; d < rank; ++d) iidx[perm[d]] = oidx[d];
      size_t flat = 0;
      for (int d = 0; d < rank; ++d) flat = flat * s[d] + iidx[d];
      ASSERT_EQ(got[i], xv[flat]) << "iter " << iter;
    }

    // cat of two tensors along a random dim, random dim orders everywhere.
    const int dim = rng() % rank;
    std::vector<int32_t> s2 = s;
    s2[dim] = 1 + rng() % 3;
    std::vector<int32_t> cs = s;
    cs[dim] = s[dim] + s2[dim];
    auto yv = random_values(test::numel_of(s2), rng);
    Args c;
    c.tensor<float>(s, xv, random_order(rank, rng));
    c.tensor<float>(s2, yv, random_order(rank, rng));
    c.add_tensor_list({0, 1});
    c.add_int(dim);
    c.empty(cs, ScalarType::Float, random_order(rank, rng));
    c.repeat(4);
    ASSERT_EQ(c.call(kernels::aten_cat_out, 2), Error::Ok) << c.ctx.failure;
    auto cg = c.values<float>(4);
    for (size_t i = 0; i < cg.size(); ++i) {
      auto idx = unravel(i, cs);
      const bool first = int32_t(idx[dim]) < s[dim];
      if (!first) idx[dim] -= s[dim];
      const auto& src_s = first ? s : s2;
      size_t flat = 0;
      for (int d = 0; d < rank; ++d) flat = flat * src_s[d] + idx[d];
      ASSERT_EQ(cg[i], first ? xv[flat] : yv[flat]) << "iter " << iter;
    }
  }
}

}  // namespace
}  // namespace etmcu
