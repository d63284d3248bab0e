#!/usr/bin/env bash
# What the tests need beyond the Rust toolchain, installed where missing, so that `cargo test`
# passes on a fresh Debian machine. The tests call it through `support::setup`:
#
#   setup.sh browser   Debian's chromium, node and npm (apt, as root or through sudo), then
#                      the npm packages of tests/browser/package-lock.json; prints chromium's path
#   setup.sh python    tests/requirements.txt (llama-cpp-python, which builds llama.cpp in about
#                      9 minutes on 2 cores, and gguf); prints the Python that has them
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

case "${1:-}" in
  browser) browser ;;
  python) python ;;
  *) missing "usage: tests/support/setup.sh browser|python" ;;
esac
