#!/usr/bin/env bash
# Applies each planted bug in turn, runs the test assemblies CI runs for its code, and expects them to fail.
# Usage: tools/planted-bugs/check.sh [--quick] [N...]   (--quick: only the test classes the README names as catching it)
# Always reverts the patch, also on Ctrl-C. Exit 1 if any bug went uncaught.
set -uo pipefail
cd "$(dirname "$0")/../.."
quick=0; [ "${1:-}" = "--quick" ] && { quick=1; shift; }
declare -A project=(
  [1]="tests/ArrowLz4Fast.Frames.Tests"
  [2]="tests/ArrowLz4Fast.Frames.Tests"
  [3]="tests/ArrowLz4Fast.Frames.Tests"
  [4]="tests/ArrowLz4Fast.Tests tests/ArrowLz4Fast.NetStandard.Tests"
  [5]="tests/ArrowLz4Fast.Tests"
)
declare -A catchers=(
  [1]="FullyQualifiedName~Liblz4AgreementTests"
  [2]="FullyQualifiedName~ErrorKindCorpusTests|FullyQualifiedName~MalformedCorpusTests|FullyQualifiedName~RawFrameCorpusTests"
  [3]="FullyQualifiedName~DecodeBatchTests.Batches_of_more_items|FullyQualifiedName~DecodeBatchTests.In_a_batch_of_several_parts"
  [4]="FullyQualifiedName~IpcDecompressingStreamHostileTests"
  [5]="FullyQualifiedName~SlabMemoryAllocator"
)
applied=""
revert() { [ -n "$applied" ] && git apply -R "$applied" && echo "reverted $applied"; applied=""; }
trap revert EXIT INT TERM
missed=0
for patch in tools/planted-bugs/[0-9]-*.patch; do
  n=$(basename "$patch"); n=${n%%-*}
  [ $# -gt 0 ] && [[ " $* " != *" $n "* ]] && continue
  git apply "$patch" || { echo "planted-bugs: $patch does not apply"; exit 2; }
  applied=$patch
  caught=0
  for p in ${project[$n]}; do
    args=(-c Release); [ $quick -eq 1 ] && args+=(--filter "${catchers[$n]}")
    out=$(dotnet test "$p" "${args[@]}" 2>&1); rc=$?
    failed=$(grep -E '^\s+Failed [A-Za-z]' <<<"$out" | sed -E 's/^\s+Failed //; s/ \[.*//' | sed -E 's/\(.*//' | sort | uniq -c)
    echo "planted-bugs: $n in $p: exit $rc"; [ -n "$failed" ] && echo "$failed"
    [ $rc -ne 0 ] && caught=1
  done
  revert
  [ $caught -eq 1 ] && echo "planted-bugs: $n CAUGHT" || { echo "planted-bugs: $n MISSED"; missed=1; }
done
git diff --quiet -- src || { echo "planted-bugs: src/ is not clean"; exit 2; }
exit $missed
