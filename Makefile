# Two entry points: `make lab` (install, then open the triage notebook on the bundled sample)
# and `make test` (install, then run every test, notebooks included).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab app test install samples kb-check probe screenshots mutation

$(STAMP): requirements.txt pyproject.toml setup.py $(wildcard lib/casebook/reading/_linescan*.[ch])
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	@# an editable install leaves the package's bytecode to the first run, which may not write it
	@# (PYTHONDONTWRITEBYTECODE): compile it once here, as a regular install does
	$(BIN)/python -m compileall -q lib > /dev/null
	touch $(STAMP)

install: $(STAMP)

# JupyterLab refuses to run as root unless told; containers and CI machines often are root
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# config/ raises the websocket message limit to 256 MiB, so FileUpload can carry small archives; turns off
# JupyterLab's news and update announcements (config/labconfig); and gives Voila a template that loads nothing
# from the internet and shows the app without the notebook's prose (config/voila/templates/casebook)
JUPYTER_ENV := JUPYTER_CONFIG_PATH=$(CURDIR)/config JUPYTER_PATH=$(CURDIR)/config
LAB_OFFLINE := --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate

lab: $(STAMP)
	$(JUPYTER_ENV) $(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_OFFLINE) $(LAB_ARGS) notebooks/01_triage.ipynb

# the triage app without code cells, served by Voila on this machine only
APP_PORT ?= 8866
app: $(STAMP)
	cd notebooks && $(JUPYTER_ENV) $(CURDIR)/$(BIN)/voila 01_triage.ipynb --no-browser --port=$(APP_PORT) \
		--Voila.ip=127.0.0.1 $(APP_ARGS)

# the browser tests drive Debian's Chromium; installed here, never downloaded by playwright
# (with a CJK font, so the walk's Chinese labels show in screenshots)
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if [ "$$(id -u)" != 0 ]; then echo "make: $(CHROMIUM) is missing; as root: apt-get update && apt-get install -y chromium" >&2; exit 1; fi
	apt-get update && apt-get install -y chromium fonts-wqy-microhei

# the case memory's tests start a PostgreSQL server of their own from Debian's packages (tests/memories.py)
POSTGRES := /usr/lib/postgresql
$(POSTGRES):
	@if [ "$$(id -u)" != 0 ]; then echo "make: PostgreSQL is missing; as root: apt-get update && apt-get install -y postgresql" >&2; exit 1; fi
	apt-get update && apt-get install -y postgresql

test: $(STAMP) $(CHROMIUM) $(POSTGRES)
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python -m pytest

# mutmut on the judging and knowledge stages and the evidence stage's cascade and incident rules, in a temporary
# copy of the project (docs/testing.md); over an hour on two shared cores, so not part of `make test`
mutation: $(STAMP)
	$(BIN)/python tests/mutation.py

# each step of the walk in English and 中文, for docs/screenshots.md (not part of `make test`)
screenshots: $(STAMP) $(CHROMIUM)
	$(BIN)/python tests/screenshots.py docs/screenshots

samples: $(STAMP)
	$(BIN)/casebook synth samples --out kb/samples

kb-check: $(STAMP)
	$(BIN)/casebook kb check

# the decompression bombs and the 50 MB line of bench/bombs.py, each read by `casebook triage` in a process
# of its own: time and peak memory (docs/reliability.md); not part of `make test`
probe: $(STAMP)
	$(BIN)/python -m casebook.bench.probe
