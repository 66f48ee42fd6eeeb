// BanPolicy: the default, configuration (add, remove, extends), JSON round trips and errors.
#include "catch.hpp"

#include "fixtures.hpp"
#include "socratic/scan/ban_policy.hpp"
#include "socratic/scan/library_policy.hpp"
#include "socratic/scan/detail/symbol_names.hpp"

using namespace socratic;
namespace fx = scanner_fixtures;

namespace {
std::filesystem::path policy_file(const std::string& name, const std::string& text) {
  const auto path = fx::scratch_dir() / name;
  fx::write_bytes(path, text);
  return path;
}
}  // namespace

TEST_CASE("default policy bans CUTLASS, CuTe, cuBLAS, cuBLASLt and cuDNN", "[scanner][policy]") {
  const BanPolicy p = default_ban_policy();
  CHECK(p.names() == std::vector<std::string>{"cutlass", "cute", "cublas", "cublaslt", "cudnn"});
  CHECK_NOTHROW(validate(p));
  REQUIRE(p.find("cutlass") != nullptr);
  CHECK(p.find("cutlass")->namespaces == std::vector<std::string>{"cutlass"});
  CHECK(p.find("cute")->namespaces == std::vector<std::string>{"cute"});
  CHECK(p.find("nosuch") == nullptr);

  // The symbol patterns separate cuBLAS from cuBLASLt and spare helper names.
  auto matches = [](const std::string& pattern, const std::string& name) {
    return std::regex_search(name, std::regex(pattern), std::regex_constants::match_continuous);
  };
  const std::string cublas = p.find("cublas")->symbols.at(0);
  const std::string cublaslt = p.find("cublaslt")->symbols.at(0);
  const std::string cudnn = p.find("cudnn")->symbols.at(0);
  CHECK(matches(cublas, "cublasGemmEx"));
  CHECK(matches(cublas, "cublasLoggerConfigure"));
  CHECK_FALSE(matches(cublas, "cublasLtMatmul"));
  CHECK(matches(cublaslt, "cublasLtMatmul"));
  CHECK(matches(cudnn, "cudnnConvolutionForward"));
  CHECK_FALSE(matches(cudnn, "cudnn_style_softmax"));
  CHECK_FALSE(matches(cudnn, "my_cudnnCreate"));

  CHECK(socratic::detail::glob_match("libcublas.so*", "libcublas.so.13"));
  CHECK_FALSE(socratic::detail::glob_match("libcublas.so*", "libcublasLt.so.13"));
  CHECK(socratic::detail::glob_match("libcudnn_*.so*", "libcudnn_ops.so.9"));
  CHECK_FALSE(socratic::detail::glob_match("libcudnn.so*", "libcudnn"));
}

TEST_CASE("policy: add, replace and remove libraries", "[scanner][policy]") {
  BanPolicy p = default_ban_policy();
  CHECK(p.remove("cute"));
  CHECK_FALSE(p.remove("cute"));
  p.add({"cufft", "cuFFT", {"libcufft.so*"}, {"cufft[A-Z]"}, {}});
  p.add({"cudnn", "cuDNN, files only", {"libcudnn.so*"}, {}, {}});
  CHECK(p.names() == std::vector<std::string>{"cutlass", "cublas", "cublaslt", "cudnn", "cufft"});
  CHECK(p.find("cudnn")->symbols.empty());
}

TEST_CASE("policy JSON: save and load round trip; extends, remove, add", "[scanner][policy]") {
  BanPolicy p = default_ban_policy();
  p.add({"cufft", "cuFFT", {"libcufft.so*"}, {"cufft[A-Z]"}, {}});
  const auto path = fx::scratch_dir() / "roundtrip.json";
  save_ban_policy(p, path);
  CHECK(load_ban_policy(path) == p);

  const auto extended = policy_file("extends.json", R"({"schema_version": 1, "extends": "default",
    "remove": ["cute", "cublaslt"],
    "libraries": [{"name": "cufft", "files": ["libcufft.so*"], "symbols": ["cufft[A-Z]"]},
                  {"name": "cutlass", "namespaces": ["cutlass", "cutlass_extensions"]}]})");
  const BanPolicy loaded = load_ban_policy(extended);
  CHECK(loaded.names() == std::vector<std::string>{"cutlass", "cublas", "cudnn", "cufft"});
  CHECK(loaded.find("cutlass")->namespaces ==
        std::vector<std::string>{"cutlass", "cutlass_extensions"});

  const auto standalone = policy_file(
      "standalone.json", R"({"libraries": [{"name": "cudnn", "files": ["libcudnn*.so*"]}]})");
  CHECK(load_ban_policy(standalone).names() == std::vector<std::string>{"cudnn"});
}

TEST_CASE("policy errors name the file, the library entry and the field", "[scanner][policy]") {
  using Catch::Matchers::Contains;
  auto load = [](const std::string& name, const std::string& text) {
    return load_ban_policy(policy_file(name, text));
  };
  CHECK_THROWS_WITH(load("syntax.json", R"({"libraries": [)"),
                    Contains("syntax.json") && Contains("invalid JSON"));
  CHECK_THROWS_WITH(
      load("regex.json", R"({"libraries": [{"name": "x", "symbols": ["cublas[A-Z"]}]})"),
      Contains("regex.json") && Contains("library #0 \"x\" field \"symbols\"[0]") &&
          Contains("invalid regular expression"));
  CHECK_THROWS_WITH(
      load("upper.json", R"({"libraries": [{"name": "cuBLAS", "files": ["libcublas.so*"]}]})"),
      Contains("upper.json") && Contains("field \"name\"") && Contains("lower case"));
  CHECK_THROWS_WITH(load("typo.json", R"({"libraries": [{"name": "x", "symbol": ["x[A-Z]"]}]})"),
                    Contains("typo.json") && Contains("library #0 \"x\"") &&
                        Contains("unknown field \"symbol\""));
  CHECK_THROWS_WITH(load("empty.json", R"({"libraries": [{"name": "x"}]})"),
                    Contains("empty.json") && Contains("no evidence patterns"));
  CHECK_THROWS_WITH(load("dup.json", R"({"libraries": [{"name": "x", "files": ["a"]},
                                                         {"name": "x", "files": ["b"]}]})"),
                    Contains("library #1 \"x\" field \"name\"") && Contains("duplicate"));
  CHECK_THROWS_WITH(
      load("folder.json", R"({"libraries": [{"name": "x", "files": ["/usr/lib/libx.so"]}]})"),
      Contains("field \"files\"[0]") && Contains("without folders"));
  CHECK_THROWS_WITH(
      load("ns.json", R"({"libraries": [{"name": "x", "namespaces": ["cute::detail"]}]})"),
      Contains("field \"namespaces\"[0]") && Contains("not a C++ identifier"));
  CHECK_THROWS_WITH(load("remove.json", R"({"extends": "default", "remove": ["cufft"]})"),
                    Contains("remove.json") && Contains("\"cufft\" is not in the default policy"));
  CHECK_THROWS_WITH(load("noext.json", R"({"remove": ["cute"], "libraries": []})"),
                    Contains("needs \"extends\""));
  CHECK_THROWS_WITH(load("newer.json", R"({"schema_version": 99, "libraries": []})"),
                    Contains("newer.json") && Contains("newer than this Socratic reads"));
  CHECK_THROWS_WITH(load("list.json", R"({"libraries": [{"name": "x", "files": "libx.so"}]})"),
                    Contains("field \"files\"") && Contains("array of strings"));
  CHECK_THROWS_WITH(load_ban_policy(fx::scratch_dir() / "missing.json"),
                    Contains("missing.json") && Contains("cannot open"));
}

// ---- The library policy per problem (issue 38 item 4): which families a candidate may use.

TEST_CASE("library policy: Socratic problems ban cuBLAS, cuDNN and CUTLASS; the suites' problems allow them",
          "[scanner][library_policy]") {
  const LibraryPolicy native = default_library_policy(LibraryPolicyOrigin::socratic);
  CHECK(native.allowed.empty());
  CHECK(native.banned_names() == std::vector<std::string>{"cublas", "cudnn", "cutlass"});
  CHECK(native.describe() == "allowed: none; banned: cublas, cudnn, cutlass (the default for a Socratic problem)");
  for (auto origin : {LibraryPolicyOrigin::sol_execbench, LibraryPolicyOrigin::kernelbench}) {
    const LibraryPolicy suite = default_library_policy(origin);
    CHECK(suite.allowed_names() == std::vector<std::string>{"cublas", "cudnn", "cutlass"});
    CHECK(suite.allows_library("cublaslt"));  // the scanner's names map onto the families
    CHECK(suite.allows_library("cute"));
    CHECK_FALSE(suite.allows_library("cufft"));  // outside the closed set: never allowed
  }
  CHECK(default_library_policy(LibraryPolicyOrigin::kernelbench).describe() ==
        "allowed: cublas, cudnn, cutlass; banned: none (the default for a KernelBench problem)");

  // Overrides: allow, then ban; `all`; the source named.
  LibraryPolicyOverride o;
  o.allow = parse_library_family_list("cublas, CUDNN", {}, "--allow-libraries");
  o.source = "--allow-libraries cublas,cudnn";
  const LibraryPolicy allowed = resolve_library_policy(LibraryPolicyOrigin::socratic, o);
  CHECK(allowed.allowed_names() == std::vector<std::string>{"cublas", "cudnn"});
  CHECK(allowed.source == "--allow-libraries cublas,cudnn, over the default for a Socratic problem");
  LibraryPolicyOverride none;
  none.ban = parse_library_family_list("all", {}, "--ban-libraries");
  CHECK(resolve_library_policy(LibraryPolicyOrigin::sol_execbench, none).allowed.empty());
  LibraryPolicyOverride both;
  both.allow = {LibraryFamily::cutlass};
  both.ban = parse_library_family_list("cute", {}, "--ban-libraries");  // cute is CUTLASS: ban wins
  CHECK_FALSE(resolve_library_policy(LibraryPolicyOrigin::socratic, both).allows(LibraryFamily::cutlass));
  CHECK(resolve_library_policy(LibraryPolicyOrigin::kernelbench, {}) == default_library_policy(LibraryPolicyOrigin::kernelbench));

  CHECK(library_family_of_file("libcublasLt.so.13") == LibraryFamily::cublas);
  CHECK(library_family_of_file("libcudnn_engines_precompiled.so.9") == LibraryFamily::cudnn);
  CHECK_FALSE(library_family_of_file("libcudart.so.13").has_value());
}

TEST_CASE("library policy overrides: errors name the file and the field and list the valid names",
          "[scanner][library_policy]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(parse_library_family_list("cublas,cufft", {}, "--allow-libraries"),
                    "--allow-libraries[1]: \"cufft\" is not a library family; valid names: cublas, cudnn, cutlass, "
                    "or all (cublaslt counts as cublas, cute as cutlass)");
  CHECK_THROWS_WITH(parse_library_family_list("cublas,,cudnn", {}, "--ban-libraries"),
                    Contains("--ban-libraries: an empty library name in \"cublas,,cudnn\"; valid names: cublas"));
  CHECK_THROWS_WITH(parse_library_family_list("", {}, "--ban-libraries"), Contains("an empty library name"));

  const json good = json::parse(R"({"allow": ["cublas"], "ban": "cutlass,cudnn"})");
  const LibraryPolicyOverride o = library_policy_override_from_json(good, "c.json", "evaluator field \"settings.libraries\"");
  CHECK(o.allow == std::set<LibraryFamily>{LibraryFamily::cublas});
  CHECK(o.ban == std::set<LibraryFamily>{LibraryFamily::cudnn, LibraryFamily::cutlass});
  CHECK(library_policy_override_json(o) == json::parse(R"({"allow": ["cublas"], "ban": ["cudnn", "cutlass"]})"));

  CHECK_THROWS_WITH(library_policy_override_from_json(json::parse(R"({"allow": ["cublas", "mkl"]})"), "c.json",
                                                      "evaluator field \"settings.libraries\""),
                    "c.json: evaluator field \"settings.libraries\".allow[1]: \"mkl\" is not a library family; valid "
                    "names: cublas, cudnn, cutlass, or all (cublaslt counts as cublas, cute as cutlass)");
  CHECK_THROWS_WITH(library_policy_override_from_json(json::parse(R"({"alow": ["cublas"]})"), "c.json", "libraries"),
                    "c.json: libraries: unknown field \"alow\" (known: allow, ban)");
  CHECK_THROWS_WITH(library_policy_override_from_json(json::parse(R"({"ban": 3})"), "c.json", "libraries"),
                    Contains("c.json: libraries.ban: expected a list of library names; valid names: cublas"));
  CHECK_THROWS_WITH(library_policy_override_from_json(json::parse(R"(["cublas"])"), "c.json", "libraries"),
                    Contains("c.json: libraries: expected an object"));
}
