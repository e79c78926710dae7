#!/bin/bash
# One shard of `steptp generate` per PBS Pro array subjob (DATASET.md §10). Submit with tools/cluster/submit-pbs.sh,
# or: qsub -J 0-63 -v OUT=/scratch/ds,NSHARDS=64,STEPTP_ARGS="--config gen.json" tools/cluster/pbs-array.sh
# The array must be 0..N-1 and NSHARDS = N (PBS exports no array size). Other variables as in slurm-array.sh.
#PBS -N steptp-shard
#PBS -l select=1:ncpus=4
#PBS -l walltime=12:00:00
#PBS -j oe
set -euo pipefail
: "${OUT:?set OUT to the dataset directory}"
: "${PBS_ARRAY_INDEX:?run as a PBS array job (qsub -J 0-N-1)}"
: "${NSHARDS:?set NSHARDS to the array size (qsub -v NSHARDS=N,...)}"
exec "${STEPTP:-steptp}" generate ${STEPTP_ARGS:-} --out "$OUT" --shard "${PBS_ARRAY_INDEX}/${NSHARDS}" \
  --jobs "${NCPUS:-1}" --no-progress
