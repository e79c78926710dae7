#!/bin/bash
# Usage: tools/cluster/submit-pbs.sh N OUT [generate options...]   (PBS Pro)
set -euo pipefail
N=$1 OUT=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
jid=$(qsub -J "0-$((N - 1))" -v "OUT=$OUT,NSHARDS=$N,STEPTP_ARGS=$*" "$here/pbs-array.sh")
qsub -W depend="afterok:$jid" -v "OUT=$OUT" "$here/merge.sh"
echo "shards: array job $jid; merge waits for it"
