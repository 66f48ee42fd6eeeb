#!/usr/bin/env bash
# Device call D68 (session 9): where a d128 key tile's time goes, warpgroup by warpgroup. Step
# marks (versions/step_phases-session9.cu: five clock reads per key tile of the persistent loop,
# the HOPPER_STEP hook of versions/v26-session9-variants.patch) in v25 and in D66's diag1 (no
# softmax), on long d128 shapes, one d256 and one causal d128. Built by calls/build-session9.sh.
for t in .devcarry/d68_step_phases .devcarry/d68_step_phases_nosm; do
  echo "== $t"
  timeout 60 $t 1,16384,16384,16,128,0 4,4096,4096,16,128,0 1,16384,16384,8,256,0 1,16384,16384,16,128,1
done 2>&1 | tee $OUT/d68.txt
