# toolcall_f1 — the two commands: `make run` scores the bundled example, `make test` runs everything.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
PIP_FLAGS ?= --quiet --disable-pip-version-check --root-user-action=ignore
STAMP := .make-stamps

.PHONY: run test test-compiled install install-test chromium venv-check bench lint clean

$(STAMP):
	mkdir -p $(STAMP)

# Where `make run`/`make test` install: a virtual environment, or a conda environment other than
# base, is used as it is (and named). A distribution's own Python refuses installs (PEP 668): say
# what to do instead. Any other interpreter outside an environment (pyenv's, conda's base, a
# python.org install) is refused unless asked: `make run ALLOW_GLOBAL=1` (CI does, .ci/run).
# Run before each install (not when the stamps say everything is installed).
ALLOW_GLOBAL ?=
define VENV_CHECK
import os, sys, sysconfig
allow, goal = sys.argv[1] not in ("", "0"), sys.argv[2] or "run"
prefix = os.path.realpath(sys.prefix)
conda = os.environ.get("CONDA_PREFIX")
conda_env = bool(conda) and os.path.realpath(conda) == prefix and os.environ.get("CONDA_DEFAULT_ENV", "base") != "base"
venv = "make a virtual environment first:\n  python3 -m venv .venv && . .venv/bin/activate && make " + goal
if sys.prefix != sys.base_prefix or conda_env:
    print("make: installing into the environment at " + prefix, file=sys.stderr)
elif os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")):
    sys.exit("This Python is managed by your system (PEP 668): " + venv)
elif allow:
    print("make: installing into the interpreter itself at " + prefix + " (ALLOW_GLOBAL=1)", file=sys.stderr)
else:
    kind = "conda's base environment" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "a Python outside any virtual environment"
    sys.exit("make: " + sys.executable + " is " + kind + ": `make " + goal + "` would install toolcall_f1 and its"
             " dependencies into " + prefix + " itself.\nEither " + venv + "\n(or `conda activate <env>`), or install"
             " there anyway: make " + goal + " ALLOW_GLOBAL=1")
endef
export VENV_CHECK

venv-check:
	@$(PYTHON) -c "$$VENV_CHECK" "$(ALLOW_GLOBAL)" "$(or $(GOAL),$(MAKECMDGOALS))"

# Runtime install: the package (editable) with evaluate/datasets.
$(STAMP)/install: pyproject.toml requirements.txt | $(STAMP)
	@$(MAKE) --no-print-directory venv-check GOAL="$(MAKECMDGOALS)"
	$(PIP) install $(PIP_FLAGS) -e ".[evaluate]"
	touch $@

install: $(STAMP)/install

run: $(STAMP)/install
	$(PYTHON) -m toolcall_f1 score --input examples/agent_traces.jsonl --tools examples/tools.json --per-tool

# Test install: torch (for the Trainer test), the test extras, Debian's chromium. From PyPI on
# Linux torch is the CUDA build (a few GB); TORCH_INDEX=https://download.pytorch.org/whl/cpu
# fetches the CPU build (about 200 MB) instead.
TORCH_INDEX ?=
$(STAMP)/install-test: pyproject.toml requirements.txt | $(STAMP)
	@$(MAKE) --no-print-directory venv-check GOAL="$(MAKECMDGOALS)"
	$(PIP) install $(PIP_FLAGS) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) torch==2.13.0
	$(PIP) install $(PIP_FLAGS) -e ".[test]"
	rm -rf $(STAMP)/verl $(STAMP)/openrlhf
	$(PIP) install $(PIP_FLAGS) --no-deps --target $(STAMP)/verl $(VERL_TEST_PACKAGES)
	$(PIP) install $(PIP_FLAGS) --no-deps --target $(STAMP)/openrlhf $(OPENRLHF_TEST_PACKAGES)
	touch $@

# verl 0.9.1 pins transformers<5.11 (the tests need >=5.13) and OpenRLHF 0.11.2 pins flash-attn
# (a CUDA build), deepspeed and transformers==5.15.0: each, with the few packages its reward path
# imports, goes without dependencies to a folder of its own (about 25 MB and 3 MB), which
# tests/integration/test_integ_verl.py and test_integ_openrlhf.py import it from.
VERL_TEST_PACKAGES := verl==0.9.1 tensordict==0.10.0 omegaconf==2.4.0 "antlr4-python3-runtime==4.9.*" \
	"pyvers>=0.1,<0.2" lazy-importer codetiming importlib_metadata orjson
OPENRLHF_TEST_PACKAGES := openrlhf==0.11.2 pylatexenc

# Debian's chromium for the browser tests. Without apt-get or root (macOS, Fedora, a normal
# account) it says how to get one and returns: the rest of the suite runs and the browser tests
# skip with the same advice. On CI (CI=true) a missing chromium is an error, never a skip.
CHROMIUM_HELP := the browser tests need Chromium at /usr/bin/chromium (or set CHROMIUM=/path/to/chromium): \
Debian/Ubuntu: sudo apt-get install chromium (or sudo make chromium); Fedora: sudo dnf install chromium; \
macOS: brew install --cask chromium, then CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium. \
Until then they are skipped; everything else runs.

chromium:
	@if [ -x "$${CHROMIUM:-/usr/bin/chromium}" ]; then exit 0; fi; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && exit 0; \
	elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		echo "installing Debian's chromium for the browser tests (sudo)"; \
		sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && exit 0; \
	fi; \
	echo "note: $(CHROMIUM_HELP)" >&2; \
	case "$${CI:-}" in true|1|yes) echo "CI: chromium is required here" >&2; exit 1;; esac

install-test: $(STAMP)/install-test chromium

# pytest's exit code 5 (no tests collected) is a failure, never a silent success; -rs prints why
# each skipped test skipped (the full conformance file, chromium, ...).
test: install-test
	@$(PYTHON) -m pytest -q -rs -p no:cacheprovider; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

# The compiled build (issue 25): `python -m build` (sdist, then the wheel from it: mypyc compiles
# the core modules), the wheel installed in a fresh virtual environment, and the conformance
# suite, the property tests, the entry points and tests/integration/test_compiled_build.py
# (compiled numbers == the pure source's) run there from a copy of the tests, so that the
# checkout's toolcall_f1/ is not what they import. `make test` stays on the pure, editable build.
COMPILED_DIR ?= /tmp/toolcall_f1-compiled
COMPILED_TESTS := tests/conformance tests/property tests/integration/test_entry_points_agree.py \
	tests/integration/test_compiled_build.py
# the full BFCL file beside the checkout (or beside a worktree's parent); the sample when neither is there
BFCL_CONFORMANCE ?= $(firstword $(abspath $(wildcard $(CURDIR)/../shared/conformance/bfcl_python.jsonl \
	$(CURDIR)/../../shared/conformance/bfcl_python.jsonl)))
test-compiled:
	rm -rf $(COMPILED_DIR) && mkdir -p $(COMPILED_DIR)
	$(PYTHON) -m venv $(COMPILED_DIR)/venv
	$(COMPILED_DIR)/venv/bin/python -m pip install $(PIP_FLAGS) build
	@start=$$(date +%s); $(COMPILED_DIR)/venv/bin/python -m build --outdir $(COMPILED_DIR)/dist . >$(COMPILED_DIR)/build.log 2>&1 \
		|| { tail -40 $(COMPILED_DIR)/build.log; exit 1; }; grep "toolcall_f1 setup:" $(COMPILED_DIR)/build.log; \
	echo "built in $$(( $$(date +%s) - start )) s: $$(cd $(COMPILED_DIR)/dist && ls -l --block-size=K *.whl | awk '{print $$5, $$9}')"
	$(COMPILED_DIR)/venv/bin/python -m pip install $(PIP_FLAGS) "$$(ls $(COMPILED_DIR)/dist/*.whl)[evaluate]" \
		"pytest>=8" "hypothesis>=6.100" "transformers>=5.13"
	cp -r tests pyproject.toml $(COMPILED_DIR)/
	@# CI= : the suite's CI check wants torch, gradio and chromium, which these tests do not use
	@cd $(COMPILED_DIR) && CI= TOOLCALL_F1_EXPECT_COMPILED=1 TOOLCALL_F1_SOURCE=$(CURDIR) \
		TOOLCALL_F1_BFCL_CONFORMANCE=$(BFCL_CONFORMANCE) venv/bin/python -m pytest -q -rs -p no:cacheprovider \
		--rootdir=$(COMPILED_DIR) $(COMPILED_TESTS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

bench: $(STAMP)/install-test
	$(PYTHON) benchmarks/run_all.py

# Both checkers always run (a ruff finding does not hide mypy's); fails if either finds something.
$(STAMP)/install-lint: pyproject.toml | $(STAMP)
	@$(MAKE) --no-print-directory venv-check GOAL="$(MAKECMDGOALS)"
	$(PIP) install $(PIP_FLAGS) -e ".[lint]"
	touch $@

lint: $(STAMP)/install-lint
	@rc=0; \
	$(PYTHON) -m ruff check toolcall_f1 tests app.py app_render.py toolcall_f1.py benchmarks || rc=1; \
	$(PYTHON) -m mypy toolcall_f1 app.py app_render.py || rc=1; \
	exit $$rc

clean:
	rm -rf $(STAMP) build dist *.egg-info test-artifacts $(COMPILED_DIR)
