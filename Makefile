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

# JupyterLab refuses to run as root unless told; containers and CI machines often are root
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/01_triage.ipynb

test: $(STAMP)
	$(BIN)/python -m pytest

samples: $(STAMP)
	$(BIN)/casebook synth samples --out kb/samples

kb-check: $(STAMP)
	$(BIN)/casebook kb check
