#!/usr/bin/env bash
# tools/research/bench/ptx_instances.py on two hand-made PTX files whose entries are known: one entry the
# same but for what two compilations of the same code differ in (the file's hash in an anonymous
# namespace and in a namespace-scope variable, basic-block numbers, the entry's own name in its
# parameters), one with an instruction changed after an inline-asm block,
# one only in the old file and one only in the new; then --new-name-sub matching an entry whose
# name gained a template argument, and the refusals (a file that is not PTX, a missing one, a bad
# option).
#   usage: tests/kernels/ptx_instances_test.sh SOURCE_DIR
set -euo pipefail
script="$1/tools/research/bench/ptx_instances.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
entry() {  # NAME HASH BLOCK INSTRUCTION: a body with an inline-asm block whose braces start their lines
  # (as nvcc writes them), and the instruction after it, where a reader stopping at the first
  # closing brace would not look; HASH is the file's hash in a namespace-scope variable's name
  printf '.entry %s(\n\t.param .u64 %s_param_0\n)\n{\n$L__BB%s_1:\n\t// begin inline asm\n{\n.reg .pred p;\n}\n\t// end inline asm\n\tmov.u64 %%rd1, _ZN39_INTERNAL_%s_9_hopper_cu_eda347ff5g_varE;\n\t%s\n\tbra.uni $L__BB%s_1;\n}\n\n' "$1" "$1" "$3" "$2" "$4" "$3"
}
{
  printf '.version 8.8\n.target sm_90a\n\n'
  entry _ZN1k41_GLOBAL__N__c01a15b6_9_hopper_cu_eda347ff4sameEv c01a15b6 0 'add.s32 %r1, %r1, 1;'
  entry _Z7changedv c01a15b6 1 'add.s32 %r1, %r1, 1;'
  entry _Z7droppedv c01a15b6 2 'ret;'
  entry _Z5tmplILb0EEvv c01a15b6 3 'ret;'
} > "$dir/old.ptx"
{
  printf '.version 8.8\n.target sm_90a\n\n'
  entry _ZN1k41_GLOBAL__N__f395fe1a_9_hopper_cu_eda347ff4sameEv f395fe1a 7 'add.s32 %r1, %r1, 1;'
  entry _Z7changedv f395fe1a 8 'add.s32 %r1, %r1, 2;'
  entry _Z5addedv f395fe1a 9 'ret;'
  entry _Z5tmplILb0ELb0EEvv f395fe1a 10 'ret;'
} > "$dir/new.ptx"
source "$(dirname "$0")/script_checks.sh"
out=$(python3 "$script" "$dir/old.ptx" "$dir/new.ptx")
echo "$out"
expect_match "$out" '^same +_ZN1k41_GLOBAL__N_4sameEv$'
expect_match "$out" '^differs +_Z7changedv  \(1 of [0-9]+ lines\)$'
expect_match "$out" '^only old +_Z7droppedv$'
expect_match "$out" '^only new +_Z5addedv$'
expect_match "$out" '^1 same, 1 differs, 2 only old, 2 only new$'
# The new file's template gained a defaulted argument: matched once its name drops it.
out=$(python3 "$script" "$dir/old.ptx" "$dir/new.ptx" --new-name-sub 'Lb0ELb0E=Lb0E')
echo "$out"
expect_match "$out" '^same +_Z5tmplILb0EEvv$'
expect_match "$out" '^2 same, 1 differs, 1 only old, 1 only new$'
printf 'not ptx at all\n' > "$dir/bad.ptx"
printf '.entry _Z4openv(\n)\n{\n\tret;\n' > "$dir/open.ptx"
expect_refusal "open.ptx: entry _Z4openv: its body does not close" python3 "$script" "$dir/old.ptx" "$dir/open.ptx"
expect_refusal "bad.ptx: no '.entry' in it" python3 "$script" "$dir/old.ptx" "$dir/bad.ptx"
expect_refusal "absent.ptx: cannot read" python3 "$script" "$dir/absent.ptx" "$dir/new.ptx"
expect_refusal "--new-name-sub wants REGEX=REPLACEMENT" python3 "$script" "$dir/old.ptx" "$dir/new.ptx" --new-name-sub x
expect_refusal "bad regular expression" python3 "$script" "$dir/old.ptx" "$dir/new.ptx" --new-name-sub '(=x'
expect_refusal "unknown option '--frob'" python3 "$script" "$dir/old.ptx" "$dir/new.ptx" --frob
expect_refusal "usage" python3 "$script" "$dir/old.ptx"
exit $fail
