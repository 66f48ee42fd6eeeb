#!/usr/bin/env bash
# tools/research/bench/ncu_dram_traffic.py on hand-made Nsight Compute raw pages whose traffic is known:
# the profiled program's output before the header, a units row, a non-attention launch first, a GQA
# shape (K and V counted at heads_kv); then a page without the metric, a page without an attention
# launch, a cell that is not a number, a file named for no scenario and a missing file, each refused
# with the file named. D114's real pages read 0.96-1.01 (one of them, tests/kernels/data/ncu-d114/, is checked here).
#   usage: tests/kernels/ncu_dram_traffic_test.sh SOURCE_DIR
set -euo pipefail
root=$1
script="$root/tools/research/bench/ncu_dram_traffic.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/scen.json" <<'JSON'
{"defaults": {"causal": false},
 "scenarios": [{"id": "mha", "batch": 2, "seqlen_q": 1024, "seqlen_kv": 1024, "heads_q": 4, "heads_kv": 4, "head_dim": 128},
               {"id": "gqa", "batch": 1, "seqlen_q": 1024, "seqlen_kv": 2048, "heads_q": 8, "heads_kv": 2, "head_dim": 64},
               {"id": "noshape", "batch": 1}]}
JSON
page() {  # RATE DURATION_NS
  echo '==PROF== Connected to process 1 (check_attention)'
  echo 'device NVIDIA H200, 132 SMs'
  echo '"ID","Kernel Name","dram__bytes.sum.per_second","gpu__time_duration.sum"'
  echo '"","","byte/s","ns"'
  echo '"0","fill_kernel(float*)","9,000,000,000,000","1,000"'
  echo "\"1\",\"void attention_fwd_kernel<Config<128>>(Params)\",\"$1\",\"$2\""
}
# mha: Q+K+V+O = 4 x 2*4*1024*128 x 2 bytes = 8,388,608; 1e12 B/s x 8,388.608 ns = 8,388,608 B
page "1,000,000,000,000" "8,388.608" | gzip > "$dir/mha.csv.gz"
# gqa: Q+O 2 x 8*1024*64 x 2 = 2,097,152; K+V 2 x 2*2048*64 x 2 = 1,048,576; total 3,145,728; read twice
page "2,000,000,000,000" "3,145.728" > "$dir/gqa.csv"
source "$(dirname "$0")/script_checks.sh"
out=$(python3 "$script" "$dir/scen.json" "$dir/mha.csv.gz" "$dir/gqa.csv")
echo "$out"
expect_match "$out" '^mha +8\.4 +8\.4 +1\.000$'
expect_match "$out" '^gqa +6\.3 +3\.1 +2\.000$'
out=$(python3 "$script" "$root/scenarios/attention_fa3_grid.json" "$root"/tests/kernels/data/ncu-d114/s16384_d128_b1_h16.csv.gz)
expect_match "$out" '^s16384_d128_b1_h16 +268\.6 +268\.4 +1\.001$'
printf '"ID","Kernel Name","gpu__time_duration.sum"\n"0","attention_fwd_kernel","1"\n' > "$dir/mha.norate.csv"
expect_refusal "mha.norate.csv: no column dram__bytes.sum.per_second" python3 "$script" "$dir/scen.json" "$dir/mha.norate.csv"
page "1" "1" | sed 's/attention_fwd_kernel/other_kernel/' > "$dir/mha.other.csv"
expect_refusal "mha.other.csv: no launch of an attention_fwd kernel" python3 "$script" "$dir/scen.json" "$dir/mha.other.csv"
page "fast" "1" > "$dir/mha.word.csv"
expect_refusal "mha.word.csv: launch 1: column dram__bytes.sum.per_second: not a number: 'fast'" \
  python3 "$script" "$dir/scen.json" "$dir/mha.word.csv"
page "1" "1" > "$dir/nosuch.csv"
expect_refusal "nosuch.csv: 'nosuch' is not a scenario of" python3 "$script" "$dir/scen.json" "$dir/nosuch.csv"
page "1" "1" > "$dir/noshape.csv"
expect_refusal "noshape: the scenario lacks a shape field" python3 "$script" "$dir/scen.json" "$dir/noshape.csv"
expect_refusal "mha.absent.csv: cannot read" python3 "$script" "$dir/scen.json" "$dir/mha.absent.csv"
exit $fail
