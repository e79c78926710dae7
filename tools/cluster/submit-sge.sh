#!/bin/bash
# Usage: tools/cluster/submit-sge.sh N OUT [generate options...]   (Grid Engine: tasks 1..N run shards 0..N-1)
set -euo pipefail
N=$1 OUT=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
jid=$(qsub -terse -t "1-$N" -v "OUT=$OUT,NSHARDS=$N,STEPTP_ARGS=$*" "$here/sge-array.sh")
jid=${jid%%.*}
qsub -hold_jid "$jid" -v "OUT=$OUT" "$here/merge.sh"
echo "shards: array job $jid; merge waits for it"
