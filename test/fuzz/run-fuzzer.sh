#!/bin/sh
# run-fuzzer.sh FUZZER SCRATCH CORPUS RUNS: a fixed number of inputs from a
# fresh copy of the corpus, with a fixed seed, so every run does the same
# work; new inputs go to SCRATCH (the build tree), never to the sources.
set -e
fuzzer=$1 scratch=$2 corpus=$3 runs=$4
rm -rf "$scratch" && mkdir -p "$scratch"
exec "$fuzzer" -runs="$runs" -seed=1 -max_len=4096 -print_final_stats=1 "$scratch" "$corpus"
