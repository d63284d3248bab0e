#!/usr/bin/env bash
# Runs the campaign {{name}} as a Slurm job array: one task per configuration, each in its own
# copy of the report project under campaign-runs/{{name}}/<configuration>/, writing its own
# document; then `bash {{script}} merge` merges them into the project.
# Written by `benchsite campaign workflow {{name}} --slurm`; write it again after changing the
# campaign. Submit it from the project's root:
#
#   job=$(sbatch --parsable {{script}})
#   sbatch --dependency=afterany:"$job" --wrap "bash {{script}} merge"
#
#SBATCH --job-name=campaign-{{name}}
#SBATCH --array=0-{{last}}
#SBATCH --gpus=1
#SBATCH --output=campaign-runs/{{name}}/slurm-%A_%a.out
set -euo pipefail

CAMPAIGN="{{name}}"
PROJECT="${SLURM_SUBMIT_DIR:-$PWD}"
RUNS="$PROJECT/campaign-runs/$CAMPAIGN"
# Each task's configuration and machine, by SLURM_ARRAY_TASK_ID.
CONFIGS=({{configs}})
MACHINES=({{machines}})

cd "$PROJECT"
if [ "${1:-}" = merge ]; then
    benchsite campaign merge "$RUNS"/*/
    exit 0
fi

task="${SLURM_ARRAY_TASK_ID:?run under sbatch, or set SLURM_ARRAY_TASK_ID}"
config="${CONFIGS[$task]}"
machine="${MACHINES[$task]}"
work="$RUNS/$config"
mkdir -p "$work"
# The task's own copy of what the campaign reads; its document is merged back afterwards.
for path in benchsite.toml profiles campaigns data; do
    if [ -e "$path" ] && [ ! -e "$work/$path" ]; then
        cp -R "$path" "$work/$path"
    fi
done
benchsite --root "$work" campaign run "$CAMPAIGN" ${machine:+--machine "$machine"} --only "$config"
