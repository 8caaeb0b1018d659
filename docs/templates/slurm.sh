#!/usr/bin/env bash
# Grade a class on a Slurm cluster: one array task per shard, then one merge (docs/teachers.md).
#
#   sbatch docs/templates/slurm.sh                       # prints: Submitted batch job <jobid>
#   sbatch --dependency=afterok:<jobid> --wrap "normkata gradebook merge grades/shard-* --out grades/class"
#
# Each task finds its shard in SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT
# (--shard auto): with --array=0-2 the class is split in 3, task 0 grading shard 1/3. The shards
# are signed with NORMKATA_HOME/grade-all.key, so every node must hold the same key: where home
# folders are shared it is one file; create it before the first submission with
#   mkdir -p ~/.local/share/normkata && openssl rand -hex 32 > ~/.local/share/normkata/grade-all.key
#
#SBATCH --job-name=normkata-grade
#SBATCH --array=0-2
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=01:00:00
#SBATCH --output=normkata-grade-%A_%a.out
set -euo pipefail

KATA="${KATA:-rmsnorm}"          # the kata
CLASS="${CLASS:-submissions}"    # the class folder, on a file system every node sees
GRADES="${GRADES:-grades}"       # each task writes $GRADES/shard-<task id>
SEED="${SEED:-20260901}"         # one seed: the whole class graded on the same inputs

# Exit code 1 means that some submission did not pass: the task itself succeeded.
normkata grade-all "$KATA" "$CLASS" --seed "$SEED" --shard auto --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$GRADES/shard-$SLURM_ARRAY_TASK_ID" || test $? -eq 1
