#!/usr/bin/env bash
# Device call D114 (session 13): how close v37 runs to L2's bandwidth. Nsight Compute metrics (clocks
# not locked, one launch after a warm-up) of v37 on non-causal grid shapes at each head dim: L2
# throughput against its peak, the bytes L2 sends the SMs, DRAM's bytes, the hit rate and the SM
# throughput. At 128 query rows a CTA reads a K/V tile per 128 x N block of S, ~5 TB/s at d128 by
# arithmetic; if L2 is near its peak there, a cluster's multicast of K/V is the lever.
set -u
r=/tmp/d114; mkdir -p $r
m=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes.sum.per_second,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,l1tex__m_xbar2l1tex_read_bytes.sum.per_second
for s in s1024_d128_b16_h16 s4096_d128_b4_h16 s16384_d128_b1_h16 s512_d128_b32_h16 s4096_d256_b4_h8 s4096_d64_b4_h32 s4096_d128_b4_h16_causal; do
  timeout 120 ncu --clock-control none --metrics $m -k regex:attention_fwd --launch-skip 1 --launch-count 1 \
    --csv --page raw .devcarry/check_attention --impl v37=.devcarry/d110/v37.so --no-timing --trial-list 0 \
    --only $s scenarios/attention_fa3_grid.json > $r/$s.csv 2> $r/$s.err
  echo "$s exit $?" >> $r/summary.txt
done
tar czf $OUT/d114.tgz -C /tmp d114
