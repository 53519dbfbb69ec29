#!/usr/bin/env bash
# Compile every examples/*.grc with grcc against this tree's GRC block definitions. Flowgraphs whose
# output_language is cpp are also configured, built and run against a temporary install of this
# build tree, so the blocks' cpp_templates cannot rot either.
#   grcc_examples.sh EXAMPLES_DIR GRC_DIR OUT_DIR BUILD_DIR
set -euo pipefail
examples=$1 grcdir=$2 out=$3 build=$4
rm -rf "$out"; mkdir -p "$out"
export GRC_BLOCKS_PATH="$grcdir${GRC_BLOCKS_PATH:+:$GRC_BLOCKS_PATH}"
# GRC loads GRC_BLOCKS_PATH before the global block directory, and a later definition of the same
# block id wins: with gr-gpuinterp installed under /usr, the installed (possibly older) YAML would be
# used. Listing this tree after the global directory makes this tree's definitions win.
global_blocks=$(/usr/bin/python3 -c "from gnuradio import gr; print(gr.prefs().get_string('grc', 'global_blocks_path', ''))" 2>/dev/null || true)
export GR_CONF_GRC_GLOBAL_BLOCKS_PATH="${global_blocks:-/usr/share/gnuradio/grc/blocks}:$grcdir"
shopt -s nullglob
n=0; prefix=""
for f in "$examples"/*.grc; do
  echo "== grcc $f"
  grcc -o "$out" "$f"
  n=$((n + 1))
  if grep -q "output_language: cpp" "$f"; then
    if [[ -z $prefix ]]; then
      prefix="$out/prefix"
      cmake --install "$build" --prefix "$prefix" >/dev/null
    fi
    id=$(sed -n 's/^    id: //p' "$f" | head -1)
    echo "== build and run C++ flowgraph $id"
    cmake -S "$out/$id" -B "$out/$id/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$out/$id/build" -j2 >/dev/null
    LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" GPUINTERP_BACKEND=cpu "$out/$id/build/$id"
  fi
done
echo "compiled $n flowgraph(s)"
(( n > 0 ))
