// etmcu-cli: the host side of `./etmcu run` and `./etmcu inspect`.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "runtime/pte/schema.h"
#include "runtime/pte/verifier.h"
#include "tools/cli/file_io.h"
#include "tools/cli/session.h"
#include "tools/cli/value_format.h"

using etmcu::host::Session;
using nlohmann::json;
namespace fs = std::filesystem;

namespace etmcu::host {
int run_command(const std::string& model, const std::string& method_name,
                const std::vector<std::string>& inputs, const std::string& data,
                const std::string& output_dir, bool as_json, bool profile);
int verify_bundled(const std::string& path, bool as_json);
int inspect_command(const std::string& model, bool as_json, bool ops_only, bool features_only);
}  // namespace etmcu::host

int main(int argc, char** argv) {
  CLI::App app{"etmcu host tools"};
  app.require_subcommand(1);

  std::string model, method = "forward", data, output_dir;
  std::vector<std::string> inputs;
  bool as_json = false, verify = false, ops_only = false, features_only = false, profile = false;

  auto* run = app.add_subcommand("run", "run a program on the host runtime");
  run->add_option("model", model, "MODEL.pte (or .bpte with --verify)")->required();
  run->add_option("--method", method, "method to run (default: forward)");
  run->add_option("--input", inputs, "input file (.npy, or raw little-endian .bin), one per input");
  run->add_option("--data", data, "external data file (.ptd)");
  run->add_option("--output-dir", output_dir, "write output_<i>.npy here");
  run->add_flag("--json", as_json, "print one JSON object on the last line");
  run->add_flag("--verify", verify, "run every test case of a bundled program (.bpte)");
  run->add_flag("--profile", profile, "time every instruction and print the per-operator table");

  auto* inspect =
      app.add_subcommand("inspect", "describe a program (.pte) or external data (.ptd)");
  inspect->add_option("model", model, "MODEL.pte or DATA.ptd")->required();
  inspect->add_flag("--json", as_json, "print JSON");
  inspect->add_flag("--ops", ops_only, "print only the operator list (for selective builds)");
  inspect->add_flag("--features", features_only,
                    "print the runtime features the program needs (-DETMCU_FEATURE_<NAME>=0|1)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (run->parsed()) {
      if (verify) return etmcu::host::verify_bundled(model, as_json);
      return etmcu::host::run_command(model, method, inputs, data, output_dir, as_json, profile);
    }
    return etmcu::host::inspect_command(model, as_json, ops_only, features_only);
  } catch (const std::exception& e) {
    std::cerr << "etmcu: " << e.what() << "\n";
    return 1;
  }
}
