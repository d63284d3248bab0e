#!/usr/bin/env bash
# shellcheck disable=SC2034 # the ARRAY_<k>_ variables are read by name
# The campaign {{name}} on Slurm. Submit it once, from the project's root:
#
#   sbatch {{script}}
#
# That short job (or `bash {{script}}` on a login node, which does the same without a job)
# makes campaign-runs/{{name}}/, submits the job arrays below, a task per configuration, and
# a merge job that runs after them all, then ends. Each task:
#   - refuses to start when this script is stale (the campaign, its profiles or the machines
#     changed since it was written), naming what changed;
#   - copies the project's benchsite.toml, profiles and campaign as they are now, and once its
#     machine's document, into campaign-runs/{{name}}/<configuration>/, whose document keeps
#     what the task measured across submits;
#   - records the node's hardware and host name into that document;
#   - measures its configuration's pending jobs, its server on a free port of the node.
# The merge job brings every task's document and logs into the project and checks it.
# Submit it again to measure only what is missing; `RETRY_FAILED=1 sbatch {{script}}`
# measures the configurations with a failure record again. BENCHSITE names the benchsite
# the jobs run (default: benchsite on PATH); sbatch passes both to the jobs.
#
# Written by `benchsite campaign workflow {{name}} --slurm`; write it again after changing
# the campaign, its profiles or the machines.
#
#SBATCH --job-name=campaign-{{name}}-submit
#SBATCH --output=/dev/null
#SBATCH --ntasks=1
{{submit_options}}set -euo pipefail

CAMPAIGN="{{name}}"
SCRIPT="{{script}}"
PROJECT="${SLURM_SUBMIT_DIR:-$PWD}"
RUNS="$PROJECT/campaign-runs/$CAMPAIGN"
BENCHSITE="${BENCHSITE:-benchsite}"

# The job arrays: one per machine and GPU count, a task per configuration, each read by its
# name (ARRAY_<k>_...) below.
ARRAYS={{count}}
{{arrays}}
cd "$PROJECT"
[ -f "$SCRIPT" ] || { echo "$PROJECT has no $SCRIPT: submit it from the project's root" >&2; exit 1; }

submit() {
    mkdir -p "$RUNS"
    if [ -n "${SLURM_JOB_ID:-}" ]; then
        exec >>"$RUNS/submit-$SLURM_JOB_ID.out" 2>&1
    fi
    "$BENCHSITE" campaign workflow "$CAMPAIGN" --slurm --check "$SCRIPT"
    local arrays=() k named configs options job
    for ((k = 1; k <= ARRAYS; k++)); do
        named="ARRAY_${k}_CONFIGS[@]"
        configs=("${!named}")
        named="ARRAY_${k}_SBATCH[@]"
        options=("${!named}")
        job=$(sbatch --parsable --job-name="campaign-$CAMPAIGN" \
            --array="0-$((${#configs[@]} - 1))" --output="$RUNS/slurm-%A_%a.out" \
            "${options[@]}" --wrap "exec bash $(printf %q "$PROJECT/$SCRIPT") task $k")
        arrays+=("${job%%;*}")
    done
    job=$(sbatch --parsable --job-name="campaign-$CAMPAIGN-merge" \
        --dependency="afterany:$(IFS=:; echo "${arrays[*]}")" --output="$RUNS/merge-%j.out" \
        {{merge_options}}--wrap "exec bash $(printf %q "$PROJECT/$SCRIPT") merge")
    echo "campaign $CAMPAIGN: job arrays ${arrays[*]}, then the merge ${job%%;*}; their output in $RUNS"
}

task() {
    local k="$1" i="${SLURM_ARRAY_TASK_ID:?run under sbatch, or set SLURM_ARRAY_TASK_ID}"
    local named="ARRAY_${k}_CONFIGS[@]"
    local configs=("${!named}")
    named="ARRAY_${k}_MACHINE"
    local machine="${!named}"
    named="ARRAY_${k}_DOCUMENT"
    local document="${!named}"
    local config="${configs[$i]}"
    local work="$RUNS/$config"
    "$BENCHSITE" campaign workflow "$CAMPAIGN" --slurm --check "$SCRIPT"
    mkdir -p "$work/campaigns" "$(dirname "$work/$document")"
    cp benchsite.toml "$work/benchsite.toml"
    rm -rf "$work/profiles"
    cp -R profiles "$work/profiles"
    cp "campaigns/$CAMPAIGN.toml" "$work/campaigns/$CAMPAIGN.toml"
    if [ ! -e "$work/$document" ] && [ -e "$document" ]; then
        cp "$document" "$work/$document"
    fi
    echo "campaign $CAMPAIGN: $config${machine:+ of $machine} on ${SLURMD_NODENAME:-$(uname -n)}"
    "$BENCHSITE" --root "$work" collect ${machine:+--machine "$machine"} hardware
    # scancel sends SIGTERM to the task's processes, and SIGKILL to what is left once the
    # batch script (this shell, exec'd by the --wrap) exits: the shell waits for benchsite to
    # stop its server and keep what it finished (Slurm's KillWait, 30 s by default, is the
    # most it gets: keep [launch] stop_timeout_s under it).
    trap 'echo "campaign $CAMPAIGN: $config cancelled; benchsite stops its server"' TERM
    "$BENCHSITE" --root "$work" campaign run "$CAMPAIGN" ${machine:+--machine "$machine"} \
        --only "$config" --free-port ${RETRY_FAILED:+--retry-failed} &
    local pid=$! status=0
    wait "$pid" || status=$?
    while kill -0 "$pid" 2>/dev/null; do
        status=0
        wait "$pid" || status=$?
    done
    return "$status"
}

merge() {
    local folders=("$RUNS"/*/)
    [ -d "${folders[0]}" ] || { echo "$RUNS holds no task's folder: no task started" >&2; exit 1; }
    "$BENCHSITE" campaign merge "${folders[@]}"
    "$BENCHSITE" check
}

case "${1:-submit}" in
    submit) submit ;;
    task) task "$2" ;;
    merge) merge ;;
    *) echo "usage: bash $SCRIPT [submit|task N|merge]" >&2; exit 2 ;;
esac
