#!/usr/bin/env bash
# Device call D98 (session 11): the SASS for the next question (why a second softmax path costs the
# d128 loop when it does not run): the bf16 192-key persistent d128 kernel of v26 (v31's, the same
# PTX), v27 (D96: +3.4..+5.8% at non-causal s2048+) and v32's stale instance (D97: +1.2..+1.8%),
# from cuobjdump on the libraries D93-D97 carried. No timing.
set -u
r=/tmp/d98; mkdir -p $r
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
pick() {  # LIB NAME-PATTERN OUT: the one function whose mangled name matches
  $cuobjdump -sass "$1" | awk -v pat="$2" '/Function :/{keep = ($0 ~ pat)} keep' > "$r/$3.sass"
  echo "$3: $(grep -c '/\*[0-9a-f]*\*/' "$r/$3.sass") instructions" >> $r/summary.txt
}
pick .devcarry/d93/v31.so 'persistent_kernel.*ILi128ELi192ELi2ELi2ELb1ELb1ELb1ELb1ELb0ELb0EE' v31-d128w
pick .devcarry/d86/v27.so 'persistent_kernel.*ILi128ELi192ELi2ELi2ELb1ELb1ELb1ELb1ELb0EE' v27-d128w
pick .devcarry/d97/v32.so 'persistent_kernel.*ILi128ELi192ELi2ELi2ELb1ELb1ELb1ELb1ELb0ELb1EE' v32-d128w-stale
gzip -f $r/*.sass
tar czf $OUT/d98.tgz -C /tmp d98
