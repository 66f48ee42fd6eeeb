// `socratic scan` end to end: exit codes, human lines, --json, --policy.
#include "catch.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "fixtures.hpp"

namespace fx = scanner_fixtures;
using Catch::Matchers::Contains;

TEST_CASE("socratic scan: exit codes and output lines", "[scanner][tool]") {
  const std::string tool = fx::tool_path().string();
  const std::string clean = fx::binary("clean").string();
  const std::string cublas = fx::binary("cublas").string();

  auto r = fx::run({tool, "scan", clean});
  CHECK(r.exit_code == 0);
  CHECK(r.out == clean + ": clean\n");

  r = fx::run({tool, "scan", clean, cublas});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains(clean + ": clean\n"));
  CHECK_THAT(r.out, Contains(cublas + ": cublas: DT_NEEDED libcublas.so.13\n"));
  CHECK_THAT(r.out, Contains(cublas +
                             ": cublas: .dynsym: imported symbol cublasCreate_v2@libcublas.so.13"));

  const auto text = fx::scratch_dir() / "not-elf.txt";
  fx::write_bytes(text, "not a binary\n");
  r = fx::run({tool, "scan", text.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("not-elf.txt") && Contains("not an ELF file"));

  // An error wins over findings: the answer is incomplete.
  const auto truncated = fx::scratch_dir() / "truncated.so";
  fx::write_bytes(truncated, fx::read_bytes(fx::binary("clean")).substr(0, 5000));
  r = fx::run({tool, "scan", cublas, truncated.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Contains(cublas + ": cublas:"));
  CHECK_THAT(r.err, Contains("truncated.so") && Contains("truncated"));

  r = fx::run({tool, "scan"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("no BINARY"));
  r = fx::run({tool, "scan", "--bogus", clean});
  CHECK(r.exit_code == 2);
  r = fx::run({tool, "scan", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("--policy FILE"));
}

TEST_CASE("socratic scan --json", "[scanner][tool]") {
  const std::string tool = fx::tool_path().string();
  const std::string stripped = fx::binary("namespaces_stripped").string();
  const std::string clean = fx::binary("clean").string();
  const auto text = fx::scratch_dir() / "json-not-elf.txt";
  fx::write_bytes(text, "text");

  auto r = fx::run({tool, "scan", "--json", clean, stripped});
  CHECK(r.exit_code == 1);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["clean"] == false);
  REQUIRE(doc["files"].size() == 2);
  CHECK(doc["files"][0]["file"] == clean);
  CHECK(doc["files"][0]["clean"] == true);
  CHECK(doc["files"][0]["findings"].empty());
  CHECK(doc["files"][1]["clean"] == false);
  std::set<std::string> libs;
  for (const auto& f : doc["files"][1]["findings"]) {
    CHECK(f["file"] == stripped);
    CHECK_FALSE(f["evidence"].get<std::string>().empty());
    libs.insert(f["library"].get<std::string>());
  }
  CHECK(libs == std::set<std::string>{"cutlass", "cute"});
  CHECK_THAT(doc["files"][1]["notes"][0].get<std::string>(), Contains("stripped"));

  r = fx::run({tool, "scan", "--json", clean, text.string()});
  CHECK(r.exit_code == 2);
  const auto with_error = nlohmann::json::parse(r.out);
  CHECK(with_error["clean"] == false);
  CHECK(with_error["files"][0]["error"].is_null());
  CHECK_THAT(with_error["files"][1]["error"].get<std::string>(), Contains("not an ELF file"));
}

TEST_CASE("socratic scan --policy", "[scanner][tool]") {
  const std::string tool = fx::tool_path().string();
  const std::string cublas = fx::binary("cublas").string();
  const auto allow_cublas = fx::scratch_dir() / "allow-cublas.json";
  fx::write_bytes(allow_cublas, R"({"extends": "default", "remove": ["cublas"]})");
  auto r = fx::run({tool, "scan", "--policy", allow_cublas.string(), cublas});
  CHECK(r.exit_code == 0);
  CHECK(r.out == cublas + ": clean\n");

  r = fx::run({tool, "scan", "--print-policy", "--policy", allow_cublas.string()});
  CHECK(r.exit_code == 0);
  const auto policy = nlohmann::json::parse(r.out);
  CHECK(policy["libraries"].size() == 4);

  const auto bad = fx::scratch_dir() / "bad-policy.json";
  fx::write_bytes(bad, R"({"libraries": [{"name": "x", "symbols": ["("]}]})");
  r = fx::run({tool, "scan", "--policy", bad.string(), cublas});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("bad-policy.json") && Contains("field \"symbols\"[0]"));
}
