# Quick start: `make demo` and `make test` on a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit safety bench bot clean venv schemas

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m cli.demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider

safety: $(STAMP)
	$(BIN)/python -m tests.safety.report

test: lint typecheck unit safety

# The contracts' JSON Schemas (diagnosis/schemas/*.json), regenerated from the pydantic models.
schemas: $(STAMP)
	$(BIN)/python -m diagnosis.contract_schemas

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

bot: $(STAMP)
	$(BIN)/diagnose bot --bundles diagnosis/examples

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
