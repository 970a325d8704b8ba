#!/usr/bin/env bash
# The GPU run, in one command on a lent machine (docs/performance.md):
#
#   bash loadtest/device_run.sh KIT OUT [cuda|cpu] [tier|service]
#
# KIT holds the pieces `make gpu-kit` packed (each carried in its own call), OUT is
# where the tables and logs go. Steps, each bounded so the whole ends within 8 minutes:
# assemble the kit (wheels, voices, torch weights), tests/gpu, the backends table,
# the batching Synthesiser against batch-1 at 1..256 streams, then the batching one
# again at the largest count under py-spy (profile.txt: where the host's time goes;
# profile-raw.txt: its stacks), and with its decoder compiled (torch.compile with
# CUDA graphs at a few padded shapes). With `cpu` (the rehearsal: `make gpu-rehearsal`) the
# same steps run on this machine's CPU, smaller. Exits non-zero if any step failed;
# the later steps run regardless. At most 8 files come back from a call: 8 here.
# With `service` (a kit of `make gpu-kit SERVICE=1`), instead: the engine alone at
# 1, 8, 32 and 128 streams, then the whole service (configs/gpu.yaml on one machine)
# over HTTP at the same counts and an IVR's mix with the speech cache and without
# (loadtest/service_streams.py): 4 files.
set -u
kit=$1
out=$2
device=${3:-cuda}
what=${4:-tier}
python=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
mkdir -p "$out"
site=$(mktemp -d)/site
failed=0

step() {  # step NAME LIMIT_S COMMAND...: its output to OUT/NAME.txt, its end to summary.txt
  local name=$1 limit=$2 started rc
  shift 2
  started=$(date +%s)
  echo "== $name (at most ${limit} s): $*"
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.txt" 2>&1
  rc=$?
  echo "$name: exit $rc after $(($(date +%s) - started)) s" | tee -a "$out/summary.txt"
  tail -n 30 "$out/$name.txt"
  [ "$rc" -eq 0 ] || failed=1
  return "$rc"
}

{
  date -u +"%Y-%m-%d %H:%M UTC"
  echo "device $device, $(nproc) cores, $("$python" --version 2>&1)"
  command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
} >"$out/summary.txt"
cat "$out/summary.txt"

kit_limit=30  # the service's kit installs ray and ~60 more wheels
[ "$what" = service ] && kit_limit=150
step kit "$kit_limit" "$python" -m loadtest.device_kit assemble --kit "$kit" --site "$site" || exit 1
export PYTHONPATH="$site:$PWD" PATH="$site/bin:$PATH"  # py-spy's binary is in site/bin

if [ "$what" = service ]; then
  if [ "$device" = cuda ]; then
    step engine 90 "$python" -m loadtest.kokoro_streams --device cuda --streams 1 8 32 128 \
      --seconds 8 --servers batched
    step service 360 "$python" -m loadtest.service_streams --config configs/gpu.yaml \
      --device cuda --streams 1 8 32 128 --seconds 8 --ivr-streams 8 64
  else
    step service 300 "$python" -m loadtest.service_streams --config configs/local.yaml \
      --streams 1 2 --seconds 5 --ivr-streams 2
  fi
  exit "$failed"
fi
step gpu-tests 60 "$python" -m pytest -p no:cacheprovider -q -s tests/gpu
if [ "$device" = cuda ]; then
  step backends 30 "$python" -m loadtest.kokoro_backends --device cuda --batches 1 8 32 64
  step streams 150 "$python" -m loadtest.kokoro_streams --device cuda --seconds 8
  step profile 45 "$python" -m loadtest.kokoro_streams --device cuda --streams 256 \
    --seconds 20 --servers batched --profile "$out/profile-raw.txt"
  step compiled 165 "$python" -m loadtest.kokoro_streams --device cuda --streams 1 32 256 \
    --seconds 8 --servers batched --compile reduce-overhead
else
  step backends 120 "$python" -m loadtest.kokoro_backends --device cpu --batches 1 4 --rounds 1
  step streams 120 "$python" -m loadtest.kokoro_streams --device cpu --streams 1 2 --seconds 5
  step profile 60 "$python" -m loadtest.kokoro_streams --device cpu --streams 2 \
    --seconds 8 --servers batched --profile "$out/profile-raw.txt"
  step compiled 120 "$python" -m loadtest.kokoro_streams --device cpu --streams 1 \
    --seconds 5 --servers batched --compile default
fi
exit "$failed"
