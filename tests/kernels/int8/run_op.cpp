// int8_run_op CALL.json: calls one kernel of the host kernel table with arguments described in JSON
// and writes the requested tensors back, so pytest (tests/python/int8) can drive single kernels.
// Exit 0 after writing outputs, 1 when the kernel returns an error, 2 for a bad description.
//
// int8_run_op --serve: the same for many calls in one process (a start of an ASan build costs
// about 0.1 s, and the int8 tests make thousands of calls): each line of stdin is the path of a
// CALL.json; the reply on stdout is what one run prints (a bad description's message included),
// then a line "exit <code>" with the code one run would exit with. No state outlives a call.
//
// {"op": "cortex_m::pad.out",
//  "args": [{"tensor": {"dtype": 1, "sizes": [1,3,4,4], "dim_order": [0,2,3,1],
//                       "file": "x.bin", "write": "y.bin"}},   // bytes in memory order
//           {"int": 3}, {"double": 0.5}, {"bool": true}, {"int_list": [1, 2]}, {"none": null},
//           {"ref": 4}]}                                       // the same EValue as args[4]
// With a top-level "arena_bytes": N, a tensor with "arena_offset": k has its bytes at offset k of
// one shared arena (so an out can overlap an input as a memory plan places them); inputs are
// copied in first, in argument order, and tensors to be written ("write") are not initialised.
// A kernel error prints "error: <code> <message>" on stdout; success prints "temp_declared <bytes>"
// (the kernel's temp declaration for the call, kernels/api/kernel.h) and "ok".
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/api/kernel.h"

using etmcu::EValue;

namespace {

struct Holder {
  std::vector<std::unique_ptr<etmcu::Tensor>> tensors;
  std::vector<std::vector<int32_t>> sizes;
  std::vector<std::vector<uint8_t>> orders;
  std::vector<std::vector<uint8_t>> data;
  std::vector<std::vector<int64_t>> lists;
};

// Where a bad description's message goes: stderr for one run, stdout (the reply) when serving.
std::FILE* g_fail_stream = nullptr;

int fail(const std::string& why) {
  std::fprintf(g_fail_stream != nullptr ? g_fail_stream : stderr, "int8_run_op: %s\n", why.c_str());
  return 2;
}

int run_call(const char* path) {
  std::ifstream f(path);
  if (!f) return fail("cannot read " + std::string(path));
  const nlohmann::json call = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (call.is_discarded()) return fail(std::string(path) + ": not JSON");
  const std::string op = call["op"].get<std::string>();
  const etmcu::KernelEntry* entry = etmcu::find_kernel_entry(op.c_str(), op.size());
  etmcu::OpFunction fn = entry != nullptr ? entry->fn : nullptr;
  if (fn == nullptr) return fail("no kernel for " + op);

  const auto& jargs = call["args"];
  Holder h;
  std::vector<EValue> values(jargs.size());
  std::vector<std::pair<etmcu::Tensor*, std::string>> writes;
  std::vector<uint8_t> arena(call.value("arena_bytes", size_t{0}), 0xA5);
  h.sizes.reserve(jargs.size());
  h.orders.reserve(jargs.size());
  h.data.reserve(jargs.size());
  h.lists.reserve(jargs.size());
  for (size_t i = 0; i < jargs.size(); ++i) {
    const auto& a = jargs[i];
    if (a.contains("tensor")) {
      const auto& t = a["tensor"];
      auto tensor = std::make_unique<etmcu::Tensor>();
      tensor->dtype = static_cast<etmcu::ScalarType>(t["dtype"].get<int>());
      h.sizes.push_back(t["sizes"].get<std::vector<int32_t>>());
      std::vector<uint8_t> order;
      if (t.contains("dim_order")) {
        for (int d : t["dim_order"].get<std::vector<int>>())
          order.push_back(static_cast<uint8_t>(d));
      } else {
        for (size_t d = 0; d < h.sizes.back().size(); ++d) order.push_back(static_cast<uint8_t>(d));
      }
      h.orders.push_back(order);
      size_t numel = 1;
      for (int32_t s : h.sizes.back()) numel *= static_cast<size_t>(s);
      const size_t nbytes = numel * etmcu::element_size(tensor->dtype);
      std::vector<uint8_t> bytes(nbytes + 16, 0xA5);  // canary-filled outputs
      if (t.contains("file")) {
        std::ifstream in(t["file"].get<std::string>(), std::ios::binary);
        std::vector<uint8_t> got((std::istreambuf_iterator<char>(in)), {});
        if (got.size() != nbytes) return fail("argument " + std::to_string(i) + ": file size");
        if (nbytes > 0) std::memcpy(bytes.data(), got.data(), nbytes);
      }
      h.data.push_back(std::move(bytes));
      if (t.contains("arena_offset")) {
        const size_t off = t["arena_offset"].get<size_t>();
        if (off > arena.size() || nbytes > arena.size() - off)
          return fail("argument " + std::to_string(i) + ": outside the arena");
        if (!t.contains("write") && nbytes > 0)
          std::memcpy(arena.data() + off, h.data.back().data(), nbytes);
        h.data.back().clear();
        tensor->data = arena.data() + off;
      }
      tensor->sizes = h.sizes.back().data();
      tensor->dim_order = h.orders.back().data();
      tensor->dim = static_cast<uint8_t>(h.sizes.back().size());
      tensor->nbytes = nbytes;
      if (!t.contains("arena_offset")) tensor->data = nbytes > 0 ? h.data.back().data() : nullptr;
      if (t.contains("write")) writes.push_back({tensor.get(), t["write"].get<std::string>()});
      values[i] = EValue::from_tensor(tensor.get());
      h.tensors.push_back(std::move(tensor));
    } else if (a.contains("int")) {
      values[i] = EValue::from_int(a["int"].get<int64_t>());
    } else if (a.contains("double")) {
      values[i] = EValue::from_double(a["double"].get<double>());
    } else if (a.contains("bool")) {
      values[i] = EValue::from_bool(a["bool"].get<bool>());
    } else if (a.contains("int_list")) {
      h.lists.push_back(a["int_list"].get<std::vector<int64_t>>());
      values[i] = EValue::from_span(etmcu::Tag::ListInt, h.lists.back().data(),
                                    static_cast<uint32_t>(h.lists.back().size()));
    } else if (a.contains("none")) {
      values[i] = EValue();
    } else if (!a.contains("ref")) {
      return fail("argument " + std::to_string(i) + ": unknown kind");
    }
  }
  std::vector<EValue*> ptrs(jargs.size());
  for (size_t i = 0; i < jargs.size(); ++i) {
    if (jargs[i].contains("ref")) {
      const size_t j = jargs[i]["ref"].get<size_t>();
      if (j >= jargs.size()) return fail("bad ref");
      ptrs[i] = &values[j];
    } else {
      ptrs[i] = &values[i];
    }
  }
  // The temp pool is exactly what the kernel declares for this call (KernelEntry::temp_bytes, as
  // method load sizes it): a kernel that takes more fails its allocation, under every test of the
  // suite (the kernels then return MemoryAllocationFailed).
  const etmcu::Span<EValue*> args(ptrs.data(), ptrs.size());
  const uint32_t declared = entry->temp_bytes != nullptr ? entry->temp_bytes(args) : 0;
  std::vector<uint32_t> temp((declared + 3) / 4);  // word-aligned, as the firmware's pool
  etmcu::MemoryAllocator temp_alloc(temp.data(), declared);
  etmcu::KernelContext ctx;
  ctx.temp = &temp_alloc;
  const etmcu::Error e = fn(ctx, args);
  if (e != etmcu::Error::Ok) {
    std::printf("error: %s %s\n", etmcu::error_name(e), ctx.failure ? ctx.failure : "");
    return 1;
  }
  for (const auto& w : writes) {
    const uint8_t* p = static_cast<const uint8_t*>(w.first->data);
    // Outputs must not have been written past their end.
    const std::vector<uint8_t>* owner = nullptr;
    for (const auto& d : h.data)
      if (d.data() == p) owner = &d;
    if (owner != nullptr)
      for (size_t k = w.first->nbytes; k < owner->size(); ++k)
        if ((*owner)[k] != 0xA5) return fail("kernel wrote past the end of " + w.second);
    std::ofstream out(w.second, std::ios::binary);
    out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(w.first->nbytes));
  }
  std::printf("temp_declared %u\nok\n", static_cast<unsigned>(declared));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--serve") == 0) {
    g_fail_stream = stdout;
    std::string line;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      const int rc = run_call(line.c_str());
      std::printf("exit %d\n", rc);
      std::fflush(stdout);
    }
    return 0;
  }
  if (argc != 2) return fail("usage: int8_run_op CALL.json | int8_run_op --serve");
  return run_call(argv[1]);
}
