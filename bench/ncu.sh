#!/usr/bin/env bash
# Nsight Compute on the bench's cases, on a GPU machine with ncu (and PyTorch for
# torch.compile's side):
#
#   bash bench/ncu.sh OUT_DIR "reluScaleBias bf16" "softmax f32|torch" ...
#
# Each case ("<op as the bench names it> <dtype>", with "|torch" to profile
# torch.compile's version too) gets a folder OUT_DIR/NN with case.json,
# fuselab.csv and torch.csv; then OUT_DIR/report.md (bench/profile.ts report).
# The clocks are left as they are (--clock-control none); ncu's default cache
# control flushes the caches before each kernel, as the bench flushes L2.
set -u
out=$1
shift
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__maximum_warps_per_active_cycle_pct
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct
for stall in long_scoreboard lg_throttle barrier math_pipe_throttle short_scoreboard wait; do
  metrics+=,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio
done
ncu=(ncu --target-processes application-only --clock-control none --csv --page raw --print-units base --metrics "$metrics")
i=0
for spec in "$@"; do
  i=$((i + 1))
  dir=$out/$(printf %02d $i)
  mkdir -p "$dir"
  name=${spec%|torch}
  "${ncu[@]}" --log-file "$dir/fuselab.csv" node dist/bench/profile.js case "$name" --out "$dir" || echo "ncu.sh: $name: fuselab's side failed"
  if [ "$name" != "$spec" ]; then
    "${ncu[@]}" --profile-from-start off --log-file "$dir/torch.csv" python3 bench/torch/profile_torch.py "$dir/case.json" ||
      echo "ncu.sh: $name: torch.compile's side failed"
  fi
done
node dist/bench/profile.js report "$out" --out "$out/report.md"
