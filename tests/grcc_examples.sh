#!/usr/bin/env bash
# Compile every examples/*.grc with grcc against this tree's GRC block definitions; for flowgraphs
# whose output_language is cpp, also configure and build the generated C++ project.
set -euo pipefail
examples=$1 grcdir=$2 out=$3
rm -rf "$out"; mkdir -p "$out"
export GRC_BLOCKS_PATH="$grcdir${GRC_BLOCKS_PATH:+:$GRC_BLOCKS_PATH}"
shopt -s nullglob
n=0
for f in "$examples"/*.grc; do
  echo "== grcc $f"
  grcc -o "$out" "$f"
  n=$((n + 1))
done
echo "compiled $n flowgraph(s)"
(( n > 0 ))
