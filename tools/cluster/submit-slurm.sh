#!/bin/bash
# Usage: tools/cluster/submit-slurm.sh N OUT [generate options...]   e.g. submit-slurm.sh 64 /scratch/ds --config gen.json
# Submits N shard tasks and the merge job that waits for all of them (afterok).
set -euo pipefail
N=$1 OUT=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
jid=$(sbatch --parsable --array="0-$((N - 1))" --export="ALL,OUT=$OUT,NSHARDS=$N,STEPTP_ARGS=$*" "$here/slurm-array.sh")
jid=${jid%%;*}
sbatch --dependency="afterok:$jid" --export="ALL,OUT=$OUT" "$here/merge.sh"
echo "shards: array job $jid; merge waits for it"
