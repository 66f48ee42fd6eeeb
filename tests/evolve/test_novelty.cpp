// The novelty filter: identical and near-identical children are caught before evaluation.
#include "support.hpp"

#include "socratic/evolve/novelty.hpp"

using namespace socratic::evolve;

namespace {
const std::string kernel = R"(// softmax, exp once
#include <cmath>
extern "C" void softmax_rows(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<long>(r) * cols;
    float* out = y + static_cast<long>(r) * cols;
    float m = in[0];
    for (int c = 1; c < cols; ++c) m = std::fmax(m, in[c]);
    float sum = 0;
    for (int c = 0; c < cols; ++c) { out[c] = std::exp(in[c] - m); sum += out[c]; }
    const float inv = 1.0f / sum;
    for (int c = 0; c < cols; ++c) out[c] *= inv;
  }
}
)";
}  // namespace

TEST_CASE("comments and layout do not make code new", "[evolve][novelty]") {
  std::string relaid = kernel;
  relaid.replace(relaid.find("// softmax, exp once"), 20, "/* another comment */");
  for (auto& ch : relaid)
    if (ch == '\n') ch = ' ';
  CHECK(code_hash(relaid) == code_hash(kernel));
  CHECK(normalised_source("a  =\n b; // x") == "a = b ;");
  // A string literal's inside is code: "//" in it is not a comment.
  CHECK(normalised_source(R"(s = "//x";)") == R"(s = "//x" ;)");
}

TEST_CASE("the filter refuses identical and near-identical children and lets real changes through", "[evolve][novelty]") {
  NoveltyFilter f(0.97);
  f.add("c0", kernel);
  const NoveltyVerdict same = f.check("// only a new comment\n" + kernel);
  CHECK_FALSE(same.novel);
  CHECK(same.identical);
  CHECK(same.similar_to == "c0");

  // One extra statement in a long kernel: near-identical above 0.97? It changes 4 shingles of ~150.
  std::string padded = kernel;
  for (int i = 0; i < 6; ++i) padded += "static int pad" + std::to_string(i) + "(int a) { return a * 2 + 1 - a + " + std::to_string(i) + "; }\n";
  f.add("c1", padded);
  std::string nearly = padded;
  nearly.replace(nearly.find("return a * 2 + 1 - a + 5"), 25, "return a * 2 + 1 - a + 6");
  const NoveltyVerdict near = f.check(nearly);
  INFO("similarity " << near.similarity);
  CHECK_FALSE(near.novel);
  CHECK_FALSE(near.identical);
  CHECK(near.similar_to == "c1");
  CHECK(near.similarity >= 0.97);

  // A real change (the division per element back, double accumulation) is novel.
  std::string changed = kernel;
  changed.replace(changed.find("float sum = 0;"), 14, "double sum = 0;");
  changed.replace(changed.find("out[c] *= inv;"), 14, "out[c] = static_cast<float>(out[c] / sum);");
  const NoveltyVerdict v = f.check(changed);
  INFO("similarity " << v.similarity);
  CHECK(v.novel);
  CHECK(v.similarity < 0.97);
  CHECK(v.similarity > 0.5);
  CHECK(f.size() == 2);
}
