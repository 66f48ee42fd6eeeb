// The candidate store: records and notes round-trip and survive reopening, a torn last line is
// cut off with a warning, a stale or broken index is rebuilt from the log, one writer only,
// keys keep a resumed coordinator from counting a proposal twice, many threads appending at
// once never corrupt it, and bad input is refused with errors that say what and where.
#include "catch.hpp"

#include <atomic>
#include <set>
#include <thread>

#include "store_fixtures.hpp"

using namespace socratic;
using namespace store_fixtures;

namespace {

// A path under the temporary folder where nothing is (the store creates its folder itself).
std::filesystem::path removed_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("socratic-store-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

EvalReport measured(const std::filesystem::path& dir, const std::string& content, double noise = 0.01) {
  const auto file = dir / "work" / "kernel.cu";
  write_text(file, content);
  PreparedMeasure m;
  m.noise = noise;
  return m(Candidate{file}, std::nullopt, GateRunRequest{0, 7});
}

std::vector<RecordSummary> without_times(std::vector<RecordSummary> v) {
  for (auto& s : v) s.unix_s = 0;
  return v;
}

}  // namespace

TEST_CASE("store: records, notes and views survive reopening", "[store]") {
  const auto dir = removed_dir("roundtrip");
  std::vector<RecordSummary> before;
  {
    auto store = CandidateStore::open(dir);
    CHECK(store.opened().created);
    const auto file = dir / "work" / "kernel.cu";
    write_text(file, "ms 0.9\n");
    StoreRecord first = record_of("a1", measured(dir, "ms 0.9\n"), GateOutcome::admitted);
    first.origin.kind = OriginKind::start;
    first.snapshot = store.take_snapshot(file);
    const AppendResult a = store.append(first);
    REQUIRE(a.appended);
    CHECK(a.record.id == "c0");
    CHECK(std::filesystem::exists(dir / a.record.snapshot.entry));
    CHECK(a.record.snapshot.files.size() == 1);
    const StoreNote n = store.note("a2", "shared memory tiling did not help");
    CHECK(n.id == "n1");
    const auto b = store.append(record_of("a2", measured(dir, "ms 1.2\n"), GateOutcome::refused, {"c0"})).record;
    const auto c = store.append(record_of("a3", measured(dir, "wrong s2\n"), GateOutcome::failed, {"c0"})).record;
    const auto d = store.append(record_of("a1", measured(dir, "ms 0.8\n"), GateOutcome::admitted, {"c0"})).record;
    CHECK(b.id == "c2");
    CHECK(d.id == "c4");

    const StoreView v = store.view();
    REQUIRE(v.incumbent);
    CHECK(v.incumbent->id == "c4");
    CHECK(v.candidates == 4);
    CHECK(v.attempts_since_admission == 0);
    REQUIRE(v.recent_failures.size() == 2);
    CHECK(v.recent_failures[0].id == c.id);  // newest first
    CHECK(v.recent_failures[0].verdict == GateOutcome::failed);
    CHECK(v.recent_failures[1].reason == "refused for the test");
    REQUIRE(v.notes.size() == 1);
    CHECK(v.notes[0].text == "shared memory tiling did not help");
    CHECK(store.view(1).notes.empty());
    REQUIRE(v.best_per_scenario.count("s1"));
    CHECK(v.best_per_scenario.at("s1").id == "c4");
    CHECK(v.best_per_scenario.at("s2").id == "c4");
    const auto lineage = store.lineage("c4");
    REQUIRE(lineage.size() == 2);
    CHECK(lineage[0].id == "c0");
    CHECK(json(store.record("c2").report).dump() == json(b.report).dump());  // NaNs: compare as JSON
    before = store.summaries();
  }
  auto store = CandidateStore::open(dir);
  CHECK_FALSE(store.opened().created);
  CHECK_FALSE(store.opened().index_rebuilt);
  CHECK(store.opened().from_index == 5);
  CHECK(store.opened().from_log == 0);
  CHECK(store.summaries() == before);
  CHECK(store.incumbent()->id == "c4");
  CHECK(store.notes().size() == 1);
  CHECK(store.append(record_of("a1", measured(dir, "ms 0.85\n"), GateOutcome::refused)).record.id == "c5");
  CHECK(store.attempts_since_admission() == 1);
}

TEST_CASE("store: a torn last line is cut off with a warning, never a crash", "[store]") {
  const auto dir = removed_dir("torn");
  {
    auto store = CandidateStore::open(dir);
    for (int i = 0; i < 3; ++i) store.append(record_of("a1", measured(dir, "ms 1\n"), GateOutcome::refused));
  }
  const auto size = std::filesystem::file_size(dir / "store.jsonl");
  {  // a writer killed in the middle of its write
    std::ofstream out(dir / "store.jsonl", std::ios::app | std::ios::binary);
    out << R"({"v":1,"type":"candidate","seq":3,"id":"c3","report":{"bui)";
  }
  std::vector<std::string> warnings;
  StoreOptions options;
  options.warn = [&](const std::string& w) { warnings.push_back(w); };
  {
    auto store = CandidateStore::open(dir, options);
    CHECK(store.opened().truncated_tail);
    CHECK(store.opened().dropped_bytes > 0);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("torn last line") != std::string::npos);
    CHECK(store.size() == 3);
    CHECK(std::filesystem::file_size(dir / "store.jsonl") == size);
    CHECK(store.append(record_of("a1", measured(dir, "ms 1\n"), GateOutcome::refused)).record.id == "c3");
  }
  // A read-only reader ignores a torn tail without touching the file.
  {
    std::ofstream out(dir / "store.jsonl", std::ios::app | std::ios::binary);
    out << "{\"v\":1";
  }
  StoreOptions ro;
  ro.read_only = true;
  auto reader = CandidateStore::open(dir, ro);
  CHECK(reader.size() == 4);
  CHECK(reader.opened().dropped_bytes == 6);
  CHECK_THROWS_WITH(reader.note("a", "x"), Catch::Matchers::Contains("read-only"));
}

TEST_CASE("store: the index is brought up to the log, or rebuilt from it", "[store]") {
  const auto dir = removed_dir("index");
  std::vector<RecordSummary> all;
  {
    auto store = CandidateStore::open(dir);
    for (int i = 0; i < 6; ++i)
      store.append(record_of("a" + std::to_string(i % 2), measured(dir, "ms " + std::to_string(1.0 - 0.01 * i) + "\n"),
                             i % 3 == 0 ? GateOutcome::admitted : GateOutcome::refused));
    store.note("a1", "a note");
    all = store.summaries();
  }
  const auto index = dir / "store.index";
  SECTION("a lost tail of the index (killed between the log and the index)") {
    const std::string text = read_file_bytes(index);
    std::size_t cut = text.size() - 1;
    for (int lines = 0; lines < 3; --cut)
      if (text[cut - 1] == '\n') ++lines;
    write_text(index, text.substr(0, cut + 1) + "c\t5\t12");  // and a torn index line
    auto store = CandidateStore::open(dir);
    CHECK_FALSE(store.opened().index_rebuilt);
    CHECK(store.opened().from_log == 3);
    CHECK(store.summaries() == all);
    CHECK(store.notes().size() == 1);
  }
  SECTION("an index that disagrees with the log") {
    std::string text = read_file_bytes(index);
    text.replace(text.find("c\t0\t0\t"), 6, "c\t0\t9\t");
    write_text(index, text);
    auto store = CandidateStore::open(dir);
    CHECK(store.opened().index_rebuilt);
    CHECK(store.summaries() == all);
    auto again = std::move(store);  // movable; the lock moves with it
    CHECK(again.size() == 6);
  }
  SECTION("no index") {
    std::filesystem::remove(index);
    auto store = CandidateStore::open(dir);
    CHECK(store.opened().index_rebuilt);
    CHECK(store.summaries() == all);
    CHECK(store.incumbent()->id == "c3");
  }
}

TEST_CASE("store: one writer; a second is refused with a clear error", "[store]") {
  const auto dir = removed_dir("lock");
  auto first = CandidateStore::open(dir);
  CHECK_THROWS_WITH(CandidateStore::open(dir),
                    Catch::Matchers::Contains("held by another writer") && Catch::Matchers::Contains(std::to_string(::getpid())));
  StoreOptions ro;
  ro.read_only = true;
  first.note("a1", "readers may still look");
  CHECK(CandidateStore::open(dir, ro).notes().size() == 1);
}

TEST_CASE("store: a key already stored is not appended again", "[store]") {
  const auto dir = removed_dir("keys");
  auto store = CandidateStore::open(dir);
  const auto a = store.append(record_of("a1", measured(dir, "ms 0.9\n"), GateOutcome::admitted, {}, "a1/0/abc"));
  const auto b = store.append(record_of("a1", measured(dir, "ms 0.5\n"), GateOutcome::admitted, {}, "a1/0/abc"));
  CHECK(a.appended);
  CHECK_FALSE(b.appended);
  CHECK(json(b.record).dump() == json(a.record).dump());
  CHECK(store.size() == 1);
  CHECK(store.find_key("a1/0/abc")->id == "c0");
}

TEST_CASE("store: bad input is refused, naming what and where", "[store]") {
  const auto dir = removed_dir("bad");
  {
    auto store = CandidateStore::open(dir);
    CHECK_THROWS_WITH(store.append(record_of("a1", measured(dir, "ms 1\n"), GateOutcome::refused, {"c9"})),
                      Catch::Matchers::Contains("parent \"c9\" is not in the store"));
    CHECK_THROWS_WITH(store.append(record_of("a1", measured(dir, "wrong s1\n"), GateOutcome::admitted)),
                      Catch::Matchers::Contains("admitted by the gate but not correct"));
    CHECK_THROWS_WITH(store.append(record_of("a1", EvalReport{}, GateOutcome::failed)),
                      Catch::Matchers::Contains("no expected scenario"));
    CHECK_THROWS_WITH(store.note("a1", "  \n"), Catch::Matchers::Contains("empty text"));
    CHECK_THROWS_WITH(store.record("c0"), Catch::Matchers::Contains("no candidate record \"c0\""));
    CHECK_THROWS_WITH(store.lineage("c7"), Catch::Matchers::Contains("no candidate record \"c7\""));
    for (int i = 0; i < 3; ++i) store.append(record_of("a1", measured(dir, "ms 1\n"), GateOutcome::refused));
    CHECK(store.size() == 3);  // the refused appends left nothing behind
  }
  // A corrupt line in the middle of the log (not the last): an error naming the record and byte.
  std::filesystem::remove(dir / "store.index");
  std::string log = read_file_bytes(dir / "store.jsonl");
  const auto second = log.find('\n') + 1;
  log[second] = '#';
  write_text(dir / "store.jsonl", log);
  CHECK_THROWS_WITH(CandidateStore::open(dir), Catch::Matchers::Contains("store.jsonl: record 1 (byte " + std::to_string(second) + ")") &&
                                                  Catch::Matchers::Contains("corrupt line"));
  // A folder that is a file.
  write_text(dir / "plain-file", "x");
  CHECK_THROWS_WITH(CandidateStore::open(dir / "plain-file"), Catch::Matchers::Contains("is not a folder"));
  StoreOptions ro;
  ro.read_only = true;
  CHECK_THROWS_WITH(CandidateStore::open(dir / "nowhere", ro), Catch::Matchers::Contains("no candidate store here"));
}

TEST_CASE("store: many threads appending, noting and reading at once never corrupt it", "[store][concurrency]") {
  const auto dir = removed_dir("threads");
  const EvalReport report = measured(dir, "ms 1\n");
  constexpr int threads = 32, each = 40;
  {
    auto store = CandidateStore::open(dir);
    std::atomic<int> views{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < each; ++i) {
          if (i % 10 == 9)
            store.note("a" + std::to_string(t), "note " + std::to_string(i));
          else
            store.append(record_of("a" + std::to_string(t), report, i % 7 == 0 ? GateOutcome::admitted : GateOutcome::refused,
                                   {}, "a" + std::to_string(t) + "/" + std::to_string(i)));
          const StoreView v = store.view();
          if (v.incumbent) CHECK(v.incumbent->verdict == GateOutcome::admitted);
          ++views;
        }
      });
    for (auto& th : pool) th.join();
    CHECK(views == threads * each);
    CHECK(store.size() == threads * (each - 4));
    CHECK(store.notes().size() == threads * 4);
  }
  auto store = CandidateStore::open(dir);
  CHECK_FALSE(store.opened().index_rebuilt);
  std::set<std::string> ids, keys;
  std::int64_t expected_seq = 0;
  std::vector<std::int64_t> seqs;
  for (const auto& s : store.summaries()) seqs.push_back(s.seq), ids.insert(s.id), keys.insert(s.key);
  for (const auto& n : store.notes()) seqs.push_back(n.seq);
  std::sort(seqs.begin(), seqs.end());
  for (auto s : seqs) CHECK(s == expected_seq++);
  CHECK(ids.size() == threads * (each - 4));
  CHECK(keys.size() == ids.size());
  // Every line of the log parses, each on its own (no interleaved writes).
  std::ifstream in(dir / "store.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    CHECK_NOTHROW(json::parse(line));
    ++lines;
  }
  CHECK(lines == threads * each);
  CHECK(without_times(store.summaries()).size() == ids.size());
}
