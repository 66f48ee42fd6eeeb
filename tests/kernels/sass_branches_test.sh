#!/usr/bin/env bash
# tools/research/bench/sass_branches.py on hand-made cuobjdump output whose branches are known: a kernel
# with a short inner loop (a backward branch over 1 instruction), a forward branch,
# an mbarrier retry written with a label, and a predicate-operand branch; a second function
# filtered out by --match; then a file that is not SASS and a missing file, which must fail with
# the file named.
#   usage: tests/kernels/sass_branches_test.sh SOURCE_DIR
set -euo pipefail
script="$1/tools/research/bench/sass_branches.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/known.sass" <<'SASS'
	code for sm_90a
		Function : _Z6kernelPf
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                   /* 0x00000a00ff017b82 */
                                                                            /* 0x000fe40000000800 */
        /*0010*/              @!P0 BRA 0x40 ;                               /* 0x0000000000088947 */
        /*0020*/                   FADD R2, R2, R3 ;
.L_x_3:
        /*0030*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R8], R9 ;
        /*0040*/              @!P0 BRA `(.L_x_3) ;
        /*0050*/                   FFMA R4, R4, R5, R6 ;
        /*0060*/              @!P1 BRA P2, 0x50 ;
        /*0070*/                   EXIT ;
		Function : _Z5otherv
        /*0000*/                   BRA 0x0 ;
SASS
source "$(dirname "$0")/script_checks.sh"
out=$(python3 "$script" "$dir/known.sass" --match kernel)
echo "$out"
expect_match "$out" '^_Z6kernelPf$'
expect_match "$out" '^  instructions 8  branches 3  backward 2: 0x40->0x30 \(1\), 0x60->0x50 \(1\)$'
expect_no_match "$out" '_Z5otherv'  # --match kernel leaves it out
# Without --match, _Z5otherv's self-branch is listed.
expect_match "$(python3 "$script" "$dir/known.sass")" '^  instructions 1  branches 1  backward 1: 0x0->0x0 \(0\)$'
printf 'not sass at all\n' > "$dir/bad.sass"
expect_refusal "bad.sass: no 'Function :' section" python3 "$script" "$dir/bad.sass"
expect_refusal "absent.sass: cannot read" python3 "$script" "$dir/absent.sass"
expect_refusal "no function name contains 'nothing'" python3 "$script" "$dir/known.sass" --match nothing
exit $fail
