#!/bin/bash
# One shard of `steptp generate` per Slurm array task (DATASET.md §10). Submit with tools/cluster/submit-slurm.sh, or:
#   sbatch --array=0-63 --export=ALL,OUT=/scratch/ds,STEPTP_ARGS="--config gen.json" tools/cluster/slurm-array.sh
# The array must be 0..N-1 (N shards); %K throttling is fine. Environment: OUT (dataset directory, on a file system
# all nodes share), STEPTP_ARGS (generation options, e.g. "--config gen.json"; split on spaces), STEPTP (the
# binary, default steptp on PATH), NSHARDS (default SLURM_ARRAY_TASK_COUNT).
#SBATCH --job-name=steptp-shard
#SBATCH --cpus-per-task=4
#SBATCH --time=12:00:00
#SBATCH --output=steptp-shard-%A_%a.log
set -euo pipefail
: "${OUT:?set OUT to the dataset directory}"
: "${SLURM_ARRAY_TASK_ID:?run as a Slurm array job (sbatch --array=0-N-1)}"
N=${NSHARDS:-${SLURM_ARRAY_TASK_COUNT:?set NSHARDS}}
exec "${STEPTP:-steptp}" generate ${STEPTP_ARGS:-} --out "$OUT" --shard "${SLURM_ARRAY_TASK_ID}/${N}" \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" --no-progress
