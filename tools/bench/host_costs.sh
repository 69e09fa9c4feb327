#!/bin/bash
# The host's cost of single calls on the GPU machine (host_costs.cu: a clock read, a system
# call, a kernel launch, an event record, cuBLAS products), with what the machine is: its
# kernel (gVisor reports 4.4.0), clock source, processor and NUMA layout. PER_CPU=1 then
# repeats a short probe (an integer loop, a launch, one product) pinned to each CPU in turn,
# twice: whether a CPU is slow, or the machine's costs move over time.
# Usage, from the repository root: OUT=dir [PER_CPU=1] tools/bench/host_costs.sh
set -u
OUT=${OUT:-/tmp/host_costs}
mkdir -p "$OUT"
echo "kernel: $(uname -r); cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
echo "clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource \
  2>/dev/null || echo unknown)"
echo "numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
nvidia-smi topo -m 2>/dev/null | head -3
nvcc -O2 -std=c++17 -arch=sm_90 tools/bench/host_costs.cu -o "$OUT/host_costs" -lcuda -lcublas \
  -lcublasLt || exit 1
"$OUT/host_costs"
if [ "${PER_CPU:-0}" = 1 ]; then
  for pass in 1 2; do
    for c in $(seq 0 $(($(nproc) - 1))); do taskset -c "$c" "$OUT/host_costs" quick; done
  done
fi
rm -f "$OUT/host_costs"
