# Quick start: `make demo` and `make test` on a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements/lock.txt
PLANES := requirements/runai-planes.txt

.PHONY: demo test checks lint typecheck unit safety bench bot clean venv schemas lock lock-upgrade \
	system-packages conformance playground playground-picture messages

# Every runtime and dev dependency at the version pinned in the lock (pip and the build tools
# included), then the project itself without resolving anything again.
$(STAMP): pyproject.toml $(LOCK) $(PLANES)
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q -r $(LOCK)
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .
	$(BIN)/python tools/runai_planes.py >/dev/null
	@$(BIN)/pip check >/dev/null || { $(BIN)/pip check; \
	  echo "$(LOCK) does not hold what pyproject.toml asks for: run \`make lock\` and commit it" >&2; exit 1; }
	touch $(STAMP)

# Recompile the lock after changing a dependency in pyproject.toml (keeps the other pins);
# `make lock-upgrade` moves every pin to the newest release the specifiers allow.
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile -q --extra dev --extra charts \
	--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links -o $(LOCK) pyproject.toml
$(BIN)/pip-compile:
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q "$$(grep '^pip-tools==' $(LOCK))"
lock: $(BIN)/pip-compile
	$(PIP_COMPILE)
lock-upgrade: $(BIN)/pip-compile
	$(PIP_COMPILE) --upgrade

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m cli.demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -n 2 --dist loadgroup

safety: $(STAMP)
	$(BIN)/python -m tests.safety.report

# `make test` brings its own services: the system packages it needs (installed when it runs as
# root with apt-get, else one line naming the command), and a private Redis on a free loopback
# port for the unit and safety runs.
system-packages:
	@$(PY) tools/system_packages.py

test: system-packages $(STAMP)
	$(MAKE) --no-print-directory lint typecheck
	$(PY) tools/with_redis.py -- $(MAKE) --no-print-directory unit safety

checks: lint typecheck unit safety

# The contracts' JSON Schemas (diagnosis/schemas/*.json), regenerated from the pydantic models.
schemas: $(STAMP)
	$(BIN)/python -m diagnosis.contract_schemas

# The message catalogues (<package>/locale/<lang>/LC_MESSAGES/<domain>.po): after editing a .po,
# normalise it and compile the .mo beside it; commit both (a test checks they match).
messages: $(STAMP)
	$(BIN)/python -m tools.messages

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

bot: $(STAMP)
	$(BIN)/diagnose bot --bundles diagnosis/examples

# The bot in a local Slack in the browser: open the printed http://127.0.0.1:8780/ (no Slack, no token).
playground: $(STAMP)
	$(BIN)/diagnose playground

# docs/pictures/playground.png, taken in Debian's Chromium (Playwright) after a real exchange.
playground-picture: $(STAMP)
	$(BIN)/python tools/playground_picture.py docs/pictures/playground.png

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

# Slack report previews of the worked examples (HTML + headless-Chromium PNG, memory charts):
# out/preview/<example>/report.html, report.png, memory.png. Needs Debian's `chromium`.
WORKED_EXAMPLES := diagnosis/schemas/examples
PREVIEW_OUT ?= out/preview
.PHONY: preview
preview: $(STAMP)
	@for bundle in $(WORKED_EXAMPLES)/*.bundle.json; do \
	  name=$$(basename "$$bundle" .bundle.json); \
	  $(BIN)/diagnose preview "$$bundle" --out "$(PREVIEW_OUT)/$$name" || exit 1; \
	done

# Optional: replay the reference examples of an outside copy of the contracts and validate the
# product's output against its schemas, e.g. `make conformance SHARED=<the folder beside the clone>` (as .ci/run does). `make test`
# never depends on it.
conformance: $(STAMP)
	@test -n "$(SHARED)" || { echo "usage: make conformance SHARED=<folder with examples/ and spec/schema/>" >&2; exit 2; }
	$(BIN)/pytest -q -p no:cacheprovider conformance --shared "$(SHARED)"
