#!/usr/bin/env bash
# Device call D73 (session 9): the plateau question drawn this session, "Are the main loop's global
# loads coalesced, or does each request touch more sectors than it needs?", asked of v25 with Nsight
# Compute's memory counters: L2 sectors and requests read, L2 writes, DRAM bytes, on one long shape
# per head dim. The loads are TMA boxes; the ideal is each CTA tile reading its head's K and V once
# (plus Q once and O written once), computed beside the counters by the log.
set -u
r=/tmp/d73; mkdir -p $r
m=lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sector_hit_rate.pct
for s in s16384_d128_b1_h16 s4096_d64_b4_h32 s16384_d64_b1_h32 s16384_d256_b1_h8 s512_d128_b32_h16; do
  timeout 60 ncu --metrics $m -k regex:attention_fwd --launch-skip 1 --launch-count 1 --csv \
    .devcarry/check_attention --impl v25=.devcarry/d61/v25.so --no-timing --only $s scenarios/attention_fa3_grid.json \
    > $r/$s.csv 2> $r/$s.err
  echo "$s exit $?" >> $r/summary.txt
  grep -h '"lts__\|"dram__\|"gpu__' $r/$s.csv | awk -F'","' '{print "  " $(NF-2), $(NF-1), $NF}' | tr -d '"' >> $r/summary.txt
done
tar czf $OUT/d73.tgz -C /tmp d73
