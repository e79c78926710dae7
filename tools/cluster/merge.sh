#!/bin/bash
# The merge job after a shard array (DATASET.md §10): checks that all N shards under OUT/shards/ are present once,
# complete and of one configuration, then filters and exports OUT (S10-S11). Submit it so that it starts only when
# every array task succeeded: Slurm `sbatch --dependency=afterok:<array job id>`, PBS Pro
# `qsub -W depend=afterok:<array job id>[]`, Grid Engine `qsub -hold_jid <array job id>` (see submit-*.sh).
# Environment: OUT, STEPTP (default steptp on PATH), MERGE_ARGS (e.g. --require-same-env).
#SBATCH --job-name=steptp-merge
#SBATCH --time=02:00:00
#PBS -N steptp-merge
#PBS -l walltime=02:00:00
#$ -N steptp-merge
#$ -cwd
set -euo pipefail
: "${OUT:?set OUT to the dataset directory}"
exec "${STEPTP:-steptp}" merge --out "$OUT" ${MERGE_ARGS:-}
