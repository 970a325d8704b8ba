# make run   - install into .venv (if needed) and serve on 127.0.0.1:$(PORT)
# make test  - install, lint (ruff, mypy), run the whole test suite
# make test-fast - the unit tier only (no Ray, no lint): the inner loop
# make test-busy - make test beside a noisy neighbour of our own (a busy host's hour);
#              BUSY_TARGET=cluster-tests (or any target) for one tier, BUSY_ARGS for the
#              neighbour (python3 -m loadtest.neighbour --help)
# make bench - time to first audio and throughput, service vs engine (not in CI;
#              GPU=1: Kokoro on CUDA, 1..256 streams, batched vs batch-1)
# make fuzz  - a long property-based fuzz run of the text normaliser (not in CI)
# make cluster-up / cluster-down - a Ray cluster of 4 nodes on this machine serving
#              configs/gpu.yaml's application (PostgreSQL ledger); cluster-load runs
#              the bundled Locust users and prints the replica counts as they move
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
PORT ?= 8000
JOBS ?= $(shell nproc)
export RAY_USAGE_STATS_ENABLED := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Python must be let write bytecode down: where PYTHONDONTWRITEBYTECODE is set, every
# Ray worker would compile what it imports of torch and ray afresh each time it starts.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install browser beside test-busy unit-tier service-tiers compute-tests run docs docs-build docs-openapi test test-fast lint unit serve-tests cluster-tests fuzz bench bench-continuity bench-jobs bench-ivr clean \
	cluster-up cluster-down cluster-status cluster-load gpu-kit gpu-rehearsal

# uv resolves and installs the whole project in seconds where pip takes minutes.
# Bytecode: the packages that many processes import at once (two pytest workers, a
# dozen Ray processes starting together, each of which would compile the same
# modules at the same moment) are compiled here, on every core; the rest, most of the
# 26,000 modules installed (transformers, sympy, the client SDKs: a few imported by
# one process each), by the first import that needs them. Compiling every module
# took 66 s of CPU (36 s here); these, 11 s (6 s). uv does not read pip's
# configuration, so the wheel folders pip is told to look in (where a machine keeps
# its CPU build of torch) are passed on; constraints.txt pins torch for both.
COMPILED := ray torch fastapi starlette pydantic pydantic_core uvicorn onnxruntime numpy aiohttp grpc opentelemetry
# libraries of ray the service never imports; torch's own test helpers (one is
# Python 3.12 syntax)
NOT_COMPILED := (^|/)(ray/(rllib|data|train|tune|llm|air)|torch/testing/_internal)/
FIND_LINKS := $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null)

$(VENV)/.installed: pyproject.toml constraints.txt deployments/synthesis/engines/kokoro/data/kokoro_voices.sha256
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c constraints.txt uv
	$(PY) -m uv pip install -q --python $(PY) -c constraints.txt \
	  $(addprefix --find-links ,$(FIND_LINKS)) -e '.[dev,clients,piper,vits,kokoro-torch,docs]'
	cd "$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" && \
	  $(abspath $(PY)) -m compileall -q -j0 -x '$(NOT_COMPILED)' $(COMPILED)
	$(PY) -m deployments.synthesis.engines.kokoro.assets
	$(PY) -m deployments.synthesis.engines.kokoro.model.weights
	$(PY) -m deployments.synthesis.synthesiser
	touch $@

install: $(VENV)/.installed

run: install
	PORT=$(PORT) $(PY) -m serve_app.run

# The documentation site: docs/ with mkdocs.yml. The API reference page renders the
# OpenAPI document the code serves, written here first (serve_app/openapi.py), so it
# cannot drift from the routes. docs-build is strict: a broken link or anchor, a page
# missing from the nav fails it (make test runs it). docs serves the site with reload.
DOCS_PORT ?= 8001
# Material's notice of its successor, printed on every build (noted in docs/development.md)
export NO_MKDOCS_2_WARNING := 1
docs-openapi: install
	$(PY) -m serve_app.openapi docs/api/openapi.json

docs-build: docs-openapi
	$(VENV)/bin/mkdocs build --strict --quiet

docs: docs-openapi
	$(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Debian's Chromium, for the playground's browser test (tests/serve/test_playground.py,
# which says why it skips where there is none). Needs root for apt-get.
browser:
	@command -v chromium >/dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y -qq --no-install-recommends chromium >/dev/null; } || \
	  echo "could not install chromium: the browser test will skip"

# The unit and GPU tiers (no Ray) on every core at once (pytest-xdist, each worker
# kept to its own core), with Chromium's packages installed beside them for the serve
# tier's browser test; then the cluster tier, its own Ray cluster of four nodes and
# PostgreSQL (a process holds one Ray at a time: a pytest run of its own), taken down
# by its fixture however the tier ends; then the serve tier: one Ray and one Serve
# application that its tests share, so it runs alone.
# The cluster and serve tiers leave a third of the two cores idle (they wait for
# replicas to scale or restart, a node to stop, a send deadline), so lint, the docs
# build and the compute tests (the unit tier's models on the CPU, which wait on no
# clock: tests/conftest.py) run beside them at the lowest priority there is
# (SCHED_IDLE and idle I/O, util-linux's chrt and ionice; nice 19 where they are
# missing): they take what the service tiers leave idle and never delay them.
# Each tier prints its slowest tests: where the time goes, in every CI log.
# -O keeps each one's output in one piece.
BESIDE := $(if $(word 2,$(shell command -v chrt; command -v ionice)),chrt --idle 0 ionice -c 3,nice -n 19)
test: install
	$(MAKE) --no-print-directory -j2 -Otarget unit-tier browser
	$(MAKE) --no-print-directory -j2 -Otarget service-tiers beside

unit-tier: install
	$(PY) -m pytest -n $(JOBS) -m "not compute" --durations=20 tests/unit tests/gpu

service-tiers: install
	$(PY) -m pytest --durations=10 tests/cluster
	$(PY) -m pytest --durations=20 tests/serve

# Starved of CPU while the service tiers are busy, a compute test may take minutes:
# the per-test timeout (a hang's guard) is longer here. Only the compute tests'
# files are collected (tests/tiers.py names them).
beside:
	$(BESIDE) $(MAKE) --no-print-directory -Otarget lint docs-build compute-tests

compute-tests: install
	$(PY) -m pytest -n $(JOBS) -m compute --timeout 1800 --durations=10 $$($(PY) -m tests.tiers compute)

# What a shared host does to the suite in a slow hour, on demand: the target run beside
# processes at normal priority that keep a core busy and take the memory bandwidth
# (loadtest/neighbour.py, standard library only: the install runs beside them too);
# they stop with the target, and with this make however it stops.
BUSY_TARGET ?= test
BUSY_ARGS ?=
test-busy:
	$(PYTHON) -m loadtest.neighbour $(BUSY_ARGS) -- $(MAKE) --no-print-directory $(BUSY_TARGET)

# The inner loop: the unit tier only, no lint, no Ray (about a third of make test),
# with the GPU tier (tests/gpu: on the CPU here, smaller; all of it on a lent GPU).
test-fast: install
	$(PY) -m pytest -n $(JOBS) --durations=20 tests/unit tests/gpu

unit: test-fast

serve-tests: install
	$(PY) -m pytest tests/serve

cluster-tests: install
	$(PY) -m pytest --durations=10 tests/cluster

# A head, a CPU worker and two synthesis workers (separate `ray start` processes),
# PostgreSQL as the ledger, `serve deploy` through the dashboard: docs/deploying.md, "A Ray
# cluster on this machine". PORT is the head's proxy; the workers' follow it.
cluster-up: install
	$(PY) -m serve_app.cluster up --port $(PORT)

cluster-down:
	$(PY) -m serve_app.cluster down

cluster-status:
	$(PY) -m serve_app.cluster status

# LOAD_ARGS: --users N --seconds S (default 8 users for 60 s).
cluster-load:
	$(PY) -m serve_app.cluster load $(LOAD_ARGS)

# Not part of `make test`: time to first audio and throughput, Kokoro at 1/2/4/8
# streams and eSpeak at 1/4/16/64 streams and fixed rates (BENCH_ARGS: see --help),
# then an IVR's mix of fixed prompts and new texts with the speech cache and without
# (IVR_ARGS: python -m loadtest.ivr --help).
# make bench GPU=1: Kokoro on CUDA instead, the backends alone and then 1..256 streams,
# the batching Synthesiser beside a batch-1 server of the same model.
bench: install
ifdef GPU
	$(PY) -m loadtest.kokoro_backends --device cuda --batches 1 8 32 64
	$(PY) -m loadtest.kokoro_streams --device cuda $(BENCH_ARGS)
else
	$(PY) -m loadtest.bench $(BENCH_ARGS)
	$(PY) -m loadtest.ivr $(IVR_ARGS)
endif

# The IVR mix alone (docs/speech-cache.md, docs/performance.md).
bench-ivr: install
	$(PY) -m loadtest.ivr $(IVR_ARGS)

# Not part of `make test`: what previous_text / next_text cost (model time) and change
# (pitch at the joint between requests) for the default voice (docs/voice-agents.md).
bench-continuity: install
	$(PY) -m loadtest.continuity

# Not part of `make test`: one long-form job of JOBS_ARGS (--characters 100000 --voice
# default --seconds 30), one chunk at a time and on every replica, and live requests'
# first audio beside it (docs/performance.md).
bench-jobs: install
	$(PY) -m loadtest.jobs $(JOBS_ARGS)

# A lent GPU machine (docs/performance.md): gpu-kit packs what it lacks in
# pieces under 48 MiB (.gpu-kit/1, .gpu-kit/2: one carried per call), and
# loadtest/device_run.sh runs the GPU tier and tables there in one command.
# gpu-rehearsal runs that same sequence on this machine's CPU first. SERVICE=1:
# the whole service's wheels too (5 pieces), and its run over HTTP.
gpu-kit: install
	$(PY) -m loadtest.device_kit pack --out .gpu-kit $(if $(SERVICE),--service)

gpu-rehearsal: install
	$(PY) -m loadtest.device_kit rehearse --work var/gpu-rehearsal $(if $(SERVICE),--service)

# Not part of `make test`: a long property-based fuzz run of the text normaliser.
fuzz: install
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -p no:cacheprovider tests/unit/deployments/normaliser/test_properties.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
