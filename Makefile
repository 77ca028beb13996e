# toolcall_f1 — the two commands: `make run` scores the bundled example, `make test` runs everything.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
PIP_FLAGS ?= --quiet --disable-pip-version-check --root-user-action=ignore
STAMP := .make-stamps

.PHONY: run test install install-test chromium bench lint clean

$(STAMP):
	mkdir -p $(STAMP)

# Runtime install: the package (editable) with evaluate/datasets.
$(STAMP)/install: pyproject.toml requirements.txt | $(STAMP)
	$(PIP) install $(PIP_FLAGS) -e ".[evaluate]"
	touch $@

install: $(STAMP)/install

run: $(STAMP)/install
	$(PYTHON) -m toolcall_f1 score --input examples/agent_traces.jsonl --tools examples/tools.json --per-tool

# Test install: test extras, the CPU build of torch on this machine's disk, Debian's chromium.
$(STAMP)/install-test: pyproject.toml requirements.txt | $(STAMP)
	$(PIP) install $(PIP_FLAGS) torch==2.13.0
	$(PIP) install $(PIP_FLAGS) -e ".[test]"
	touch $@

chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		echo "installing Debian's chromium for the browser test"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
		|| (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null); \
	fi

install-test: $(STAMP)/install-test chromium

# pytest's exit code 5 (no tests collected) is a failure, never a silent success.
test: install-test
	@$(PYTHON) -m pytest -q -p no:cacheprovider; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

bench: $(STAMP)/install-test
	$(PYTHON) benchmarks/run_all.py

lint:
	$(PYTHON) -m ruff check toolcall_f1 tests app.py benchmarks
	$(PYTHON) -m mypy toolcall_f1 app.py

clean:
	rm -rf $(STAMP) build dist *.egg-info test-artifacts
