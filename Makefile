# Two entry points: `make lab` (install, then open the triage notebook on the bundled sample)
# and `make test` (install, then run every test, notebooks included).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test install samples kb-check

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/01_triage.ipynb

test: $(STAMP)
	$(BIN)/python -m pytest

samples: $(STAMP)
	$(BIN)/casebook synth samples --out kb/samples

kb-check: $(STAMP)
	$(BIN)/casebook kb check
