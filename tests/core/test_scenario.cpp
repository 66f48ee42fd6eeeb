#include "catch.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "socratic/core/scenario.hpp"

using namespace socratic;

namespace {
std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / "socratic_core_tests";
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("scenario sets load with defaults and validate", "[core][scenario]") {
  auto path = write_temp("ok.json", R"({"name":"s","problem":"attention","defaults":{"dtype":"bf16"},
    "scenarios":[{"id":"a","batch":2,"description":"Llama-3-8B prefill"},{"id":"b","batch":1,"dtype":"fp16"}]})");
  ScenarioSet set = load_scenario_set(path);
  CHECK(set.ids() == std::vector<std::string>{"a", "b"});
  CHECK(set.scenarios[0].params["dtype"] == "bf16");
  CHECK(set.scenarios[1].params["dtype"] == "fp16");
  CHECK(set.find("b")->params["batch"] == 1);
  CHECK(set.scenarios[0].description == "Llama-3-8B prefill");
  CHECK_FALSE(set.scenarios[0].params.contains("description"));
  CHECK(json(set).get<ScenarioSet>() == set);
}

TEST_CASE("scenario set errors name the file, the scenario and the field", "[core][scenario]") {
  auto dup = write_temp("dup.json", R"({"name":"s","problem":"p","scenarios":[{"id":"a"},{"id":"a"}]})");
  CHECK_THROWS_WITH(load_scenario_set(dup), Catch::Matchers::Contains("dup.json") &&
                                                Catch::Matchers::Contains("scenario #1 \"a\"") &&
                                                Catch::Matchers::Contains("duplicate"));
  auto noid = write_temp("noid.json", R"({"name":"s","problem":"p","scenarios":[{"batch":1}]})");
  CHECK_THROWS_WITH(load_scenario_set(noid), Catch::Matchers::Contains("scenario #0") &&
                                                 Catch::Matchers::Contains("\"id\""));
  auto bad = write_temp("bad.json", R"({"name":"s", )");
  CHECK_THROWS_WITH(load_scenario_set(bad), Catch::Matchers::Contains("bad.json") &&
                                                Catch::Matchers::Contains("invalid JSON"));
  CHECK_THROWS_WITH(load_scenario_set("/nonexistent/x.json"),
                    Catch::Matchers::Contains("cannot open"));
  auto empty = write_temp("empty.json", R"({"name":"s","problem":"p","scenarios":[]})");
  CHECK_THROWS_WITH(load_scenario_set(empty), Catch::Matchers::Contains("non-empty array"));
}

TEST_CASE("the shipped data names no machine's paths", "[core][scenario]") {
  // A scenario set, a problem definition or a bank entry that points at one machine's folder
  // (/work/..., /home/..., /root/...) is a broken reference everywhere else.
  const std::filesystem::path root = SOCRATIC_SOURCE_DIR;
  int files = 0;
  for (const char* folder : {"scenarios", "kernels", "question_bank"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / folder)) {
      if (e.path().extension() != ".json") continue;
      ++files;
      std::ifstream in(e.path());
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      INFO(e.path());
      for (const char* machine : {"/work/", "/home/", "/root/"})
        CHECK(text.find(machine) == std::string::npos);
    }
  CHECK(files >= 5);
}
