// The one backend choice (agents/backend_choice.hpp): a provider's name, where its key is read,
// and which backend type is made for it.
#include "catch.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>

#include "socratic/agents/backend_choice.hpp"

using namespace socratic;
namespace fs = std::filesystem;

namespace {

/// The backend type `with_llm_backend` made for `choice`.
std::string made_for(const LlmBackendChoice& choice) {
  return with_llm_backend(choice, [](auto backend, const PriceTable&) -> std::string {
    using B = decltype(backend);
    if constexpr (std::is_same_v<B, OpenAiBackend>) return "OpenAiBackend";
    else if constexpr (std::is_same_v<B, AnthropicBackend>) return "AnthropicBackend";
    else return "ReplayBackend";
  });
}

}  // namespace

TEST_CASE("a provider's name in settings is one of three, and a wrong one is named", "[agents][backend_choice]") {
  for (LlmProvider p : {LlmProvider::openai, LlmProvider::anthropic, LlmProvider::replay})
    CHECK(llm_provider_named(provider_name(p), "agent.backend") == p);
  CHECK_THROWS_WITH(llm_provider_named("claude", "agent.backend"),
                    Catch::Matchers::Contains("agent.backend") && Catch::Matchers::Contains("\"claude\"") &&
                        Catch::Matchers::Contains("openai, anthropic or replay"));
  CHECK(usual_key_variable(LlmProvider::anthropic) == "ANTHROPIC_API_KEY");
}

TEST_CASE("the key comes from the file, else the variable named, else the provider's usual one",
          "[agents][backend_choice]") {
  const fs::path dir = fs::temp_directory_path() / "socratic-backend-choice";
  fs::create_directories(dir);
  std::ofstream(dir / "key") << "sk-from-file\n";
  ::setenv("SOCRATIC_TEST_CHOICE_KEY", "sk-from-variable", 1);
  LlmBackendChoice choice;
  choice.provider = LlmProvider::anthropic;
  choice.api_key_env = "SOCRATIC_TEST_CHOICE_KEY";
  choice.api_key_file = dir / "key";
  CHECK(chosen_api_key(choice).reveal() == "sk-from-file");
  CHECK(chosen_api_key_file(choice) == dir / "key");
  choice.api_key_file.reset();
  CHECK(chosen_api_key(choice).reveal() == "sk-from-variable");
  CHECK_FALSE(chosen_api_key_file(choice));  // a variable named: no file to hide
  choice.provider = LlmProvider::replay;
  CHECK(chosen_api_key(choice).empty());  // a replay has no server
  ::unsetenv("SOCRATIC_TEST_CHOICE_KEY");
  fs::remove_all(dir);
}

TEST_CASE("each provider makes its backend; a replay needs its trace", "[agents][backend_choice]") {
  LlmBackendChoice choice;
  choice.base_url = "http://127.0.0.1:9/v1";  // this machine: no key needed
  choice.api_key_env = "SOCRATIC_TEST_UNSET_CHOICE_KEY";
  ::unsetenv("SOCRATIC_TEST_UNSET_CHOICE_KEY");
  bool transport_applied = false;
  choice.transport = [&](BackendOptions& o) {
    transport_applied = true;
    CHECK(o.stream);
    CHECK(o.base_url == "http://127.0.0.1:9/v1");
  };
  CHECK(made_for(choice) == "OpenAiBackend");
  CHECK(transport_applied);
  choice.provider = LlmProvider::anthropic;
  CHECK(made_for(choice) == "AnthropicBackend");
  choice.provider = LlmProvider::replay;
  CHECK_THROWS_WITH(made_for(choice), Catch::Matchers::Contains("replay_trace"));
}
