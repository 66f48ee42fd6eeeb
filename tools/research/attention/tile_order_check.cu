// tile_order_check: a CPU-side check of the persistent kernel's tile order, no GPU needed.
//
// It includes the candidate itself, so what it checks is the decode_tile_order(),
// l2_section_pairs() and tile sizes (choose_tiles()) that the kernel runs, not a copy. For the FA3 grid's shapes and a few edge
// shapes (seqlen_q != seqlen_kv, GQA, one head, narrow last L2 section, fewer tiles than SMs):
//   1. every (query block, head, batch) tile appears exactly once in 0 .. num_tiles - 1;
//   2. causal: within each L2 section the key-tile count never grows along the order (heaviest
//      first), and with one section (a budget of 0) it never grows over the launch;
//   3. the ticket arithmetic: CTA i starts on tile i, then takes gridDim.x + ticket; the grid
//      takes num_tiles tickets in all (one past the end per CTA), so the counter ends at num_tiles
//      before the last CTA resets it;
//   4. it prints, per causal grid shape, the busiest CTA's work over the mean (work = key tiles +
//      1 per tile for fixed costs) for v1's order under the hardware's block dispatch, v2's static
//      stride, and v3's dynamic order: a prediction of the load balance the device should show.
// Exit 0 when 1-3 hold; each failure is printed.
//
// Build and run (from the repository root):
//   tools/research/attention/tile_order_check.sh [CANDIDATE.cu]   (default: kernels/hopper/attention.cu), or
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=compute_90a -Xcicc -O0 -I kernels/attention \
//     tools/research/attention/tile_order_check.cu -o /tmp/tile_order_check && /tmp/tile_order_check
// (-DCANDIDATE=\"path\" checks another candidate with the same functions.)
#ifndef CANDIDATE
#define CANDIDATE "../../../kernels/hopper/attention.cu"
#endif
#include CANDIDATE

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  }
}

struct Shape {
  std::string id;
  int batch, seqlen_q, seqlen_kv, heads_q, head_dim;
  bool causal;
};

// The tile sizes the candidate's dispatch table chooses for the shape (choose_tiles).
const hopper_attn::TileConfig& tiles(const Shape& s) {
  socratic_attention_args a{};
  a.batch = s.batch;
  a.seqlen_q = s.seqlen_q;
  a.seqlen_kv = s.seqlen_kv;
  a.heads_q = a.heads_kv = s.heads_q;
  a.head_dim = s.head_dim;
  a.causal = s.causal;
  a.dtype = SOCRATIC_BF16;
  return *hopper_attn::choose_tiles(a);
}
int block_m(const Shape& s) { return 64 * tiles(s).consumer_wgs; }
int block_n(const Shape& s) { return tiles(s).block_n; }

// key_blocks() of the kernel, for a query block.
int key_tiles(const Shape& s, int m_block) {
  const int shift = s.seqlen_kv - s.seqlen_q;
  const int m0 = m_block * block_m(s);
  const int key_end = s.causal ? std::min(s.seqlen_kv, m0 + block_m(s) + shift) : s.seqlen_kv;
  return key_end > 0 ? (key_end + block_n(s) - 1) / block_n(s) : 0;
}

/// Busiest processor's load over the mean when `order` is dispatched greedily (each tile to the
/// first processor to become free: the hardware for v1's grid, the ticket counter for v3).
double greedy_imbalance(const std::vector<double>& work_in_order, int procs) {
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;
  for (int i = 0; i < procs; ++i) free_at.push(0.0);
  double makespan = 0;
  for (double w : work_in_order) {
    const double start = free_at.top();
    free_at.pop();
    free_at.push(start + w);
    makespan = std::max(makespan, start + w);
  }
  const double total = std::accumulate(work_in_order.begin(), work_in_order.end(), 0.0);
  return makespan / (total / procs);
}

/// Same for v2: processor i takes tiles i, i + procs, ...
double static_imbalance(const std::vector<double>& work_in_order, int procs) {
  std::vector<double> load(procs, 0.0);
  for (size_t t = 0; t < work_in_order.size(); ++t) load[t % procs] += work_in_order[t];
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  return *std::max_element(load.begin(), load.end()) / (total / procs);
}

void check_shape(const Shape& s, long long section_budget, int sms, bool print) {
  using hopper_attn::decode_tile_order;
  const int num_m = (s.seqlen_q + block_m(s) - 1) / block_m(s);
  const int num_bh = s.batch * s.heads_q;
  const int num_tiles = num_m * num_bh;
  const int section = hopper_attn::l2_section_pairs(section_budget, s.seqlen_kv, s.head_dim, num_bh);
  const std::string where = s.id + " (section " + std::to_string(section) + " pairs)";
  expect(section >= 1 && section <= num_bh, where + ": section size out of range");

  // 1. a permutation of all tiles
  std::vector<int> seen(num_tiles, 0);
  std::vector<int> order_work;  // key tiles, in dispatch order
  for (int t = 0; t < num_tiles; ++t) {
    const hopper_attn::Tile tile = decode_tile_order(t, num_m, num_bh, s.heads_q, s.causal, section);
    const bool in_range = tile.m_block >= 0 && tile.m_block < num_m && tile.h >= 0 && tile.h < s.heads_q &&
                          tile.b >= 0 && tile.b < s.batch;
    expect(in_range, where + ": tile " + std::to_string(t) + " decodes out of range");
    if (!in_range) continue;
    ++seen[(tile.b * s.heads_q + tile.h) * num_m + tile.m_block];
    order_work.push_back(key_tiles(s, tile.m_block));
  }
  for (int i = 0; i < num_tiles; ++i)
    if (seen[i] != 1) {
      expect(false, where + ": tile " + std::to_string(i) + " appears " + std::to_string(seen[i]) + " times");
      break;
    }

  // 2. heaviest first within each section (all of the launch when one section)
  if (s.causal) {
    const int section_tiles = section * num_m;
    for (int t = 1; t < num_tiles; ++t)
      if (t % section_tiles != 0 && order_work[t] > order_work[t - 1]) {
        expect(false, where + ": tile " + std::to_string(t) + " is heavier than the one before it");
        break;
      }
  }

  // 3. tickets: CTA i runs tile i, then gridDim.x + ticket until that is past the end.
  const int grid = std::min(num_tiles, sms);
  long long tickets = 0;
  std::vector<int> runs(num_tiles, 0);
  for (int i = 0; i < grid; ++i) ++runs[i];
  for (;;) {  // any interleaving hands out tickets 0, 1, 2, ... ; each CTA stops at its first miss
    const long long tile = grid + tickets++;
    if (tile >= num_tiles) break;
    ++runs[tile];
  }
  tickets += grid - 1;  // the other CTAs' misses
  expect(tickets == num_tiles, where + ": " + std::to_string(tickets) + " tickets taken, expected " +
                                   std::to_string(num_tiles));
  expect(std::all_of(runs.begin(), runs.end(), [](int r) { return r == 1; }), where + ": a tile runs twice or never");

  // 4. predicted balance (causal only: non-causal tiles all cost the same)
  if (print && s.causal) {
    std::vector<double> v3_work, v1_work;
    for (int w : order_work) v3_work.push_back(w + 1.0);
    for (int bh = 0; bh < num_bh; ++bh)
      for (int m = num_m - 1; m >= 0; --m) v1_work.push_back(key_tiles(s, m) + 1.0);  // v1 = v2 order
    std::printf("%-28s tiles %5d  section %4d pairs  busiest/mean: v1 %.3f  v2 %.3f  v3 %.3f\n", s.id.c_str(),
                num_tiles, section, greedy_imbalance(v1_work, grid), static_imbalance(v1_work, grid),
                greedy_imbalance(v3_work, grid));
  }
}

}  // namespace

/// The shipped section sizes (l2_section_budget, v45): 8 MB of K and V per 512 keys, twice that at
/// d256, from 8 to 32 MB.
void check_section_budget() {
  const long long mb = 1ll << 20;
  struct Case { int seqlen_kv, head_dim; long long bytes; };
  const Case cases[] = {{1, 64, 8 * mb},     {512, 64, 8 * mb},     {513, 128, 16 * mb}, {1024, 128, 16 * mb},
                        {2048, 128, 32 * mb}, {16384, 64, 32 * mb}, {512, 256, 16 * mb}, {1024, 256, 32 * mb},
                        {0x7fffffff, 256, 32 * mb}};
  for (const Case& c : cases) {
    const long long got = hopper_attn::l2_section_budget(c.seqlen_kv, c.head_dim);
    expect(got == c.bytes, "l2_section_budget(" + std::to_string(c.seqlen_kv) + ", " + std::to_string(c.head_dim) +
                               ") = " + std::to_string(got) + ", expected " + std::to_string(c.bytes));
  }
}

int main() {
  check_section_budget();
  std::vector<Shape> shapes;
  // The FA3 grid: 16k tokens, hidden 2048, head dims 64/128/256, causal and not.
  for (int causal = 0; causal < 2; ++causal)
    for (int d : {64, 128, 256})
      for (int seq = 512; seq <= 16384; seq *= 2)
        shapes.push_back({"s" + std::to_string(seq) + "_d" + std::to_string(d) + (causal ? "_causal" : ""),
                          16384 / seq, seq, seq, 2048 / d, d, causal != 0});
  // Edge shapes: ragged lengths, seqlen_q != seqlen_kv both ways, one head, fewer tiles than SMs.
  shapes.push_back({"edge_q1000_kv3000_causal", 3, 1000, 3000, 5, 128, true});
  shapes.push_back({"edge_q3000_kv1000_causal", 2, 3000, 1000, 7, 64, true});
  shapes.push_back({"edge_one_head_causal", 1, 16384, 16384, 1, 256, true});
  shapes.push_back({"edge_tiny", 1, 77, 77, 1, 64, true});
  shapes.push_back({"edge_noncausal_ragged", 3, 1000, 3000, 5, 256, false});
  for (const Shape& s : shapes) {
    check_shape(s, hopper_attn::l2_section_budget(s.seqlen_kv, s.head_dim), 132, true);  // the shipped sizes
    check_shape(s, 0, 132, false);             // one section: strict longest-first
    check_shape(s, 1, 132, false);             // one pair per section
    check_shape(s, 3ll << 20, 132, false);     // sections that do not divide the pairs
    check_shape(s, hopper_attn::l2_section_budget(s.seqlen_kv, s.head_dim), 7, false);  // a small GPU / MIG slice
  }
  if (failures) {
    std::printf("%d failure(s)\n", failures);
    return 1;
  }
  std::printf("OK: %zu shapes x 5 section/SM settings: every tile exactly once, heaviest first per section, "
              "ticket count = tiles\n",
              shapes.size());
  return 0;
}
