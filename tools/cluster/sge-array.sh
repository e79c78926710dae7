#!/bin/bash
# One shard of `steptp generate` per Grid Engine array task (DATASET.md §10). Submit with tools/cluster/submit-sge.sh,
# or: qsub -t 1-64 -v OUT=/scratch/ds,STEPTP_ARGS="--config gen.json" tools/cluster/sge-array.sh
# Grid Engine numbers tasks from 1: task t runs shard t-1 of N = SGE_TASK_LAST (or NSHARDS); the range must be 1-N.
#$ -N steptp-shard
#$ -cwd
#$ -j y
#$ -pe smp 4
#$ -l h_rt=12:00:00
set -euo pipefail
: "${OUT:?set OUT to the dataset directory}"
: "${SGE_TASK_ID:?run as a Grid Engine array job (qsub -t 1-N)}"
N=${NSHARDS:-${SGE_TASK_LAST:?set NSHARDS}}
exec "${STEPTP:-steptp}" generate ${STEPTP_ARGS:-} --out "$OUT" --shard "$((SGE_TASK_ID - 1))/${N}" \
  --jobs "${NSLOTS:-1}" --no-progress
