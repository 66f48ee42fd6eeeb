// The shipped bank, the loader's errors, and the lint.
#include "support.hpp"

#include <map>
#include <set>

#include "socratic/record/trace.hpp"
#include "socratic/questions/bank.hpp"
#include "socratic/questions/bank_question_source.hpp"
#include "socratic/questions/lint.hpp"

using namespace socratic;

namespace {

using qtest::shipped;

/// A bank folder holding one file `name` with `text`.
std::filesystem::path bank_with(const std::string& dir, const std::string& name, const std::string& text) {
  auto d = qtest::temp_dir(dir);
  qtest::write_file(d / name, text);
  return d;
}

/// A valid entry as JSON text; members of `extra` (a JSON object's inside) are added or replace.
std::string entry(const std::string& id, const std::string& text, const std::string& extra = "") {
  json e = {{"id", id}, {"text", text}, {"triggers", json::array({"plateau"})}, {"evidence", "public"},
            {"tags", json::array()}, {"checks", "a measurement"}};
  if (!extra.empty()) e.update(json::parse("{" + extra + "}"));
  return e.dump();
}

std::string file_of(const std::string& group, const std::vector<std::string>& entries) {
  std::string body;
  for (const auto& e : entries) body += (body.empty() ? "" : ",") + e;
  return R"({"schema_version":1,"group":")" + group + R"(","entries":[)" + body + "]}";
}

}  // namespace

TEST_CASE("every shipped entry validates and the bank meets its content targets", "[questions][bank]") {
  const BankReadResult read = read_bank(shipped);
  for (const auto& issue : read.issues) INFO(issue.describe());
  REQUIRE(read.ok());
  const Bank& bank = read.bank;
  const LintReport lint = lint_bank(read, LintOptions{0.7, 35, 0.25, BankTargets{}});
  for (const auto& issue : lint.issues) UNSCOPED_INFO(issue.describe());
  CHECK(lint.errors() == 0);
  CHECK(lint.warnings() == 0);

  const BankCounts& c = lint.counts;
  CHECK(c.entries >= 100);
  CHECK(c.by_group.size() >= 10);
  CHECK(c.requires_reference >= 5);
  CHECK(c.arch_specific >= 18);
  for (const auto& [group, n] : c.by_group) {
    INFO("group " << group);
    CHECK(static_cast<double>(n) / static_cast<double>(c.entries) <= 0.20);  // no group dominates
  }
  for (Trigger t : all_triggers) {
    INFO("trigger " << to_string(t));
    CHECK(c.by_trigger.at(std::string(to_string(t))) >= 10);
  }
  // The groups the issue names: the study's most frequent messages, then the rest.
  for (const char* g : {"measurement", "bound", "validity", "gap", "memory", "compute", "parallelism",
                        "numerics", "limits", "strategy"})
    CHECK(c.by_group.count(g) == 1);
  // Architecture-specific entries cover Ampere, Hopper and Blackwell, by their own units.
  CHECK(c.by_arch.count("sm_80") == 1);
  CHECK(c.by_arch.at("sm_90") >= 8);
  CHECK(c.by_arch.at("sm_100") >= 6);
  std::set<std::string> hopper_words, blackwell_words;
  for (const auto& e : bank.entries) {
    if (e.evidence == "trace") {  // the reference names a question event of a shipped recording (demo/)
      INFO(e.id << " " << e.evidence_ref);
      const auto hash = e.evidence_ref.find('#');
      REQUIRE(hash != std::string::npos);
      const auto trace = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "demo" /
                         e.evidence_ref.substr(0, hash) / "trace.jsonl";
      const long long seq = std::stoll(e.evidence_ref.substr(hash + 1));
      bool found = false;
      for (const json& event : read_trace(trace).events)
        found = found || (event["seq"] == seq && event["type"] == "question" &&
                          event["asked"]["question"]["id"] == e.id);
      CHECK(found);
    } else {
      CHECK(e.evidence == "public");
    }
    CHECK(!e.checks.empty());
    CHECK(e.id.rfind(e.group + ".", 0) == 0);  // ids are GROUP.name
    for (const char* w : {"wgmma", "TMA", "warp", "setmaxnreg", "cluster"})
      if (e.fits_arch("sm_90") && !e.arch.empty() && e.text.find(w) != std::string::npos) hopper_words.insert(w);
    for (const char* w : {"tcgen05", "tensor memory", "tensor-memory", "two-CTA"})
      if (e.fits_arch("sm_100") && !e.arch.empty() && e.text.find(w) != std::string::npos) blackwell_words.insert(w);
  }
  CHECK(hopper_words.size() == 5);
  CHECK(blackwell_words.size() >= 3);
}

TEST_CASE("schema.json and the loader agree on triggers, fields and evidence", "[questions][bank]") {
  const json schema = read_json_file(shipped / "schema.json");
  const json& e = schema["$defs"]["entry"];
  std::set<std::string> schema_triggers;
  for (const auto& t : schema["$defs"]["trigger"]["enum"]) schema_triggers.insert(t.get<std::string>());
  std::set<std::string> code_triggers;
  for (Trigger t : all_triggers) code_triggers.insert(std::string(to_string(t)));
  CHECK(schema_triggers == code_triggers);
  std::set<std::string> schema_fields;
  for (auto it = e["properties"].begin(); it != e["properties"].end(); ++it) schema_fields.insert(it.key());
  CHECK(schema_fields == std::set<std::string>(socratic::detail::bank::entry_fields.begin(), socratic::detail::bank::entry_fields.end()));
  CHECK(e["required"] == json({"id", "text", "triggers", "evidence", "tags"}));
  CHECK(e["properties"]["evidence"]["enum"] == json({"public", "trace"}));
  // Every shipped file names the schema and its group.
  for (const auto& path : bank_files(shipped)) {
    const json f = read_json_file(path);
    CHECK(f["$schema"] == "./schema.json");
    CHECK(f["group"] == path.stem().string());
  }
}

TEST_CASE("malformed bank files give the file, the entry and the field", "[questions][bank]") {
  SECTION("invalid JSON names the file") {
    auto d = bank_with("syntax", "broken.json", R"({"entries": [ {"id": )");
    CHECK_THROWS_WITH(load_bank(d), Q_CONTAINS("broken.json") && Q_CONTAINS("invalid JSON"));
  }
  SECTION("unknown trigger") {
    auto d = bank_with("trigger", "g.json", file_of("g", {entry("g.a", "Is it?", R"("triggers":["plateu"])")}));
    CHECK_THROWS_WITH(load_bank(d), Q_CONTAINS("g.json") && Q_CONTAINS("entry #0 \"g.a\"") &&
                                        Q_CONTAINS("field \"triggers\"") && Q_CONTAINS("unknown trigger \"plateu\""));
  }
  SECTION("missing text, wrong types, bad arch, unknown field: all reported at once") {
    auto d = bank_with("many", "g.json",
                       file_of("g", {R"({"id":"g.a","triggers":["start"],"evidence":"public","tags":[]})",
                                     entry("g.b", "Is it?", R"("requires_reference":"yes")"),
                                     entry("g.c", "Is it?", R"("arch":["sm_90","hopper"])"),
                                     entry("g.d", "Is it?", R"("trigers":["start"])"),
                                     entry("g.e", "Is it?", R"("evidence":"trace")"),
                                     entry("g.f", "Is it?", R"("group":"other")"),
                                     R"(["not an object"])"}));
    const BankReadResult r = read_bank(d);
    std::vector<std::string> text;
    for (const auto& i : r.issues) text.push_back(i.describe());
    REQUIRE(r.issues.size() == 7);
    CHECK_THAT(text[0], Q_CONTAINS("entry #0 \"g.a\": field \"text\": missing"));
    CHECK_THAT(text[1], Q_CONTAINS("entry #1 \"g.b\": field \"requires_reference\": expected true or false"));
    CHECK_THAT(text[2], Q_CONTAINS("entry #2 \"g.c\": field \"arch\": \"hopper\" is not an architecture"));
    CHECK_THAT(text[3], Q_CONTAINS("entry #3 \"g.d\": field \"trigers\": unknown field"));
    CHECK_THAT(text[4], Q_CONTAINS("entry #4 \"g.e\": field \"evidence_ref\": missing"));
    CHECK_THAT(text[5], Q_CONTAINS("entry #5 \"g.f\": field \"group\": \"other\" differs from the file's group \"g\""));
    CHECK_THAT(text[6], Q_CONTAINS("entry #6: expected an object"));
    for (const auto& t : text) CHECK_THAT(t, Q_CONTAINS("g.json: "));
    CHECK(r.bank.entries.empty());  // invalid entries are never loaded
    CHECK_THROWS_WITH(load_bank(d), Q_CONTAINS("g.json: entry #0 \"g.a\" field \"text\": missing"));
  }
  SECTION("file-level problems") {
    auto d = bank_with("filelevel", "a.json", R"({"group":"a","entrys":[]})");
    qtest::write_file(d / "b.json", R"({"schema_version":7,"entries":[]})");
    const BankReadResult r = read_bank(d);
    REQUIRE(r.issues.size() == 3);
    CHECK_THAT(r.issues[0].describe(), Q_CONTAINS("a.json: field \"entrys\": unknown field"));
    CHECK_THAT(r.issues[1].describe(), Q_CONTAINS("a.json: field \"entries\": missing"));
    CHECK_THAT(r.issues[2].describe(), Q_CONTAINS("b.json: field \"schema_version\"") && Q_CONTAINS("newer"));
  }
  SECTION("duplicate ids across files") {
    auto d = bank_with("dup", "a.json", file_of("a", {entry("x.same", "Is the first one fast?")}));
    qtest::write_file(d / "b.json", file_of("b", {entry("x.same", "Is the second one slow?")}));
    CHECK_THROWS_WITH(load_bank(d), Q_CONTAINS("b.json") && Q_CONTAINS("entry #0 \"x.same\"") &&
                                        Q_CONTAINS("duplicate id, first used by") && Q_CONTAINS("a.json"));
  }
  SECTION("a folder without bank files, and no folder") {
    CHECK_THROWS_WITH(load_bank(qtest::temp_dir("empty")), Q_CONTAINS("no bank files"));
    CHECK_THROWS_WITH(load_bank("/nonexistent/bank"), Q_CONTAINS("/nonexistent/bank") && Q_CONTAINS("not a folder"));
  }
}

TEST_CASE("entries load with their defaults; architecture names normalise", "[questions][bank]") {
  auto d = bank_with("ok", "g.json",
                     file_of("g", {entry("g.a", "Is the loop unrolled?", R"("arch":"sm_90a","requires_reference":true)"),
                                   R"({"id":"g.b","group":"g","text":"Which pipe is busy?","triggers":["start","plateau"],"evidence":"trace","evidence_ref":"c1#12","tags":["profile"]})"}));
  const Bank bank = load_bank(d);
  REQUIRE(bank.entries.size() == 2);
  const BankEntry& a = bank.entries[0];
  CHECK(a.group == "g");
  CHECK(a.arch == std::vector<std::string>{"sm_90"});
  CHECK(a.requires_reference);
  CHECK(a.fits_arch("sm_90a"));
  CHECK(a.fits_arch("9.0"));
  CHECK_FALSE(a.fits_arch("sm_80"));
  CHECK_FALSE(a.fits_arch(""));  // unknown GPU: no arch-specific questions
  const BankEntry& b = *bank.find("g.b");
  CHECK(b.serves(Trigger::start));
  CHECK_FALSE(b.serves(Trigger::suspicious_gain));
  CHECK(b.fits_arch(""));
  CHECK(b.evidence_ref == "c1#12");
  CHECK(b.checks.empty());
  CHECK(normalize_arch("SM_100f") == "sm_100");
  CHECK(normalize_arch("10.0") == "sm_100");
  CHECK(normalize_arch("8.6") == "sm_86");
  CHECK(normalize_arch("hopper").empty());
  CHECK(normalize_arch("sm_9").empty());
}

TEST_CASE("problem kinds: an entry applies only to problems of its kinds, and lint names odd kinds",
          "[questions][bank][kinds]") {
  auto d = bank_with("kinds", "g.json",
                     file_of("g", {entry("g.any", "Which scenario is the slowest?", ""),
                                   entry("g.gpu", "Which warp stall dominates?", R"("kinds":["gpu"])"),
                                   entry("g.attn", "Which causal tile runs longest?", R"("kinds":["gpu","attention"])"),
                                   entry("g.typo", "Which attn tile is idle?", R"("kinds":["atention"])")}));
  const BankReadResult read = read_bank(d);
  REQUIRE(read.ok());
  const Bank& bank = read.bank;
  CHECK(bank.find("g.attn")->kinds == std::vector<std::string>{"gpu", "attention"});
  CHECK(bank.find("g.any")->fits_kinds({}));
  CHECK_FALSE(bank.find("g.gpu")->fits_kinds({}));  // unknown problem: no kind-specific questions
  CHECK_FALSE(bank.find("g.attn")->fits_kinds({"cpu"}));
  CHECK_FALSE(bank.find("g.attn")->fits_kinds({"gpu"}));  // every kind it needs
  CHECK(bank.find("g.attn")->fits_kinds({"gpu", "matmul", "attention"}));

  auto pool = [&](std::optional<std::vector<std::string>> kinds) {
    BankSourceOptions o;
    o.problem_kinds = std::move(kinds);
    BankQuestionSource source(bank, o);
    CampaignState st;
    std::set<std::string> ids;
    for (const BankEntry* e : source.pool(Trigger::plateau, st)) ids.insert(e->id);
    return ids;
  };
  CHECK(pool(std::vector<std::string>{"cpu"}) == std::set<std::string>{"g.any"});
  CHECK(pool(std::vector<std::string>{"gpu", "matmul", "attention"}) == std::set<std::string>{"g.any", "g.gpu", "g.attn"});
  CHECK(pool(std::nullopt).size() == 4);  // no filter asked for

  const LintReport lint = lint_bank(read);
  CHECK(lint.counts.by_kind.at("any") == 1);
  CHECK(lint.counts.by_kind.at("gpu") == 2);
  bool typo_named = false;
  for (const auto& i : lint.issues)
    typo_named = typo_named || (!i.is_error() && i.field == "kinds" && i.message.find("\"atention\"") != std::string::npos);
  CHECK(typo_named);

  auto bad = bank_with("kinds_bad", "g.json", file_of("g", {entry("g.x", "Is it bad?", R"("kinds":[])")}));
  const BankReadResult bad_read = read_bank(bad);
  REQUIRE(bad_read.issues.size() == 1);
  CHECK(bad_read.issues[0].field == "kinds");
}

TEST_CASE("lint: an entry for any problem that names a GPU-only term is named (a CPU problem would be asked it)",
          "[questions][lint][kinds]") {
  auto d = bank_with("gpu_words", "g.json",
                     file_of("g", {entry("g.ncu", "Which counter did your last change move?",
                                         R"("checks":"ncu on that counter before and after the change.")"),
                                   entry("g.warps", "How many Warps does each row use?"),
                                   entry("g.tagged", "Which warp stall dominates?", R"("kinds":["gpu"])"),
                                   entry("g.neutral", "Which scenario is the slowest on this hardware?"),
                                   entry("g.warpage", "Does the warpage of the plot hide the slowest scenario?")}));
  const BankReadResult read = read_bank(d);
  REQUIRE(read.ok());
  std::map<std::string, std::string> named;  // entry -> field
  for (const auto& i : lint_bank(read).issues)
    if (i.message.find("has no \"kinds\"") != std::string::npos) {
      CHECK_FALSE(i.is_error());  // a warning for a user's bank ...
      named[i.where] = i.field;
    }
  CHECK(named.size() == 2);
  CHECK(named["entry #0 \"g.ncu\""] == "checks");
  CHECK(named["entry #1 \"g.warps\""] == "text");
  // ... and an error for the shipped bank, which must meet its targets.
  std::size_t errors = 0;
  for (const auto& i : lint_bank(read, LintOptions{0.7, 35, 0.25, BankTargets{}}).issues)
    errors += i.is_error() && i.message.find("has no \"kinds\"") != std::string::npos;
  CHECK(errors == 2);
}

TEST_CASE("lint reports duplicates, near-duplicates and questions that are not questions", "[questions][lint]") {
  auto d = bank_with("lint", "g.json",
                     file_of("g", {entry("g.a", "Is the baseline faster in cycles or only in wall time?"),
                                   entry("g.b", "Is the baseline faster in wall time, or only in cycles?"),
                                   entry("g.c", "Use TMA for the K tiles."),
                                   entry("g.d", "Is it slow because of bank conflicts?"),
                                   entry("g.e", "Is it fast? Is it right?"),
                                   R"({"id":"g.f","text":"Which stall reason dominates the main loop?","triggers":["plateau"],"evidence":"public","tags":[]})"}));
  const LintReport r = lint_bank(d);
  std::vector<std::string> errors, warnings;
  for (const auto& i : r.issues) (i.is_error() ? errors : warnings).push_back(i.describe());
  REQUIRE(errors.size() == 4);
  CHECK_THAT(errors[0], Q_CONTAINS("entry #2 \"g.c\": field \"text\": is not a question"));
  CHECK_THAT(errors[1], Q_CONTAINS("entry #3 \"g.d\"") && Q_CONTAINS("\"because\""));
  CHECK_THAT(errors[2], Q_CONTAINS("entry #4 \"g.e\"") && Q_CONTAINS("more than one question"));
  CHECK_THAT(errors[3], Q_CONTAINS("entry #1 \"g.b\"") && Q_CONTAINS("near-duplicate of") &&
                            Q_CONTAINS("entry #0 \"g.a\"") && Q_CONTAINS("similarity 1.00"));
  REQUIRE(warnings.size() >= 2);
  CHECK_THAT(warnings[0], Q_CONTAINS("entry #5 \"g.f\": field \"checks\": missing"));
  CHECK_THAT(warnings[1], Q_CONTAINS("no entry serves trigger"));
  CHECK(r.counts.entries == 6);
  CHECK(r.counts.by_group.at("g") == 6);
}

TEST_CASE("text similarity is a Jaccard index of content words", "[questions][lint]") {
  CHECK(text_similarity("Are loads coalesced?", "are LOADS coalesced") == Approx(1.0));
  CHECK(text_similarity("How many registers spill?", "Which scenario fails?") == Approx(0.0));
  // {registers->register, spill, kernel} vs {register, spill, loop}: 2 of 4.
  CHECK(text_similarity("Does the kernel spill registers?", "Does the loop spill a register?") == Approx(0.5));
  // Near-duplicates of the shipped bank are caught at the default threshold, rewordings are not.
  const std::string a = "Which stall reason dominates the hot loop in the warp-state samples?";
  CHECK(text_similarity(a, "Which stall reason dominates the hot loop in warp state samples?") >= 0.7);
  CHECK(text_similarity(a, "Which stall reason dominates in your kernel but not in the reference implementation?") < 0.7);
}

TEST_CASE("lint's content targets fail a bank that is too small or lopsided", "[questions][lint]") {
  auto d = bank_with("targets", "big.json",
                     file_of("big", {entry("big.a", "Is the first loop unrolled?"), entry("big.b", "Which pipe is the busiest?"),
                                     entry("big.c", "How full is the last wave?")}));
  qtest::write_file(d / "small.json", file_of("small", {entry("small.a", "Are the stores vectorised?")}));
  const LintReport plain = lint_bank(d);
  CHECK(plain.errors() == 0);
  bool share_warning = false;
  for (const auto& i : plain.issues) share_warning |= !i.is_error() && i.message.find("\"big\" holds 3 of 4") != std::string::npos;
  CHECK(share_warning);
  LintOptions strict;
  strict.targets = BankTargets{};
  const LintReport r = lint_bank(d, strict);
  std::string all;
  for (const auto& i : r.issues)
    if (i.is_error()) all += i.describe() + "\n";
  CHECK_THAT(all, Q_CONTAINS("target unmet: 4 entries, need 100"));
  CHECK_THAT(all, Q_CONTAINS("target unmet: 2 groups, need 10"));
  CHECK_THAT(all, Q_CONTAINS("target unmet: 0 entries need a reference, need 5"));
  CHECK_THAT(all, Q_CONTAINS("target unmet: 0 architecture-specific entries, need 18"));
  CHECK_THAT(all, Q_CONTAINS("trigger start served by 0 entries"));
  CHECK_THAT(all, Q_CONTAINS("group \"big\" holds 3 of 4 entries, more than 20%"));
}
