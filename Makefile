# The two front doors: `make serve` and `make test`. Each sets up what it needs on a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: serve test bench schema constraints clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]' -c constraints.txt
	touch $(STAMP)

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch node_modules/.installed

serve: $(STAMP)
	$(BIN)/python -m graph_service serve

test: $(STAMP) node_modules/.installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m benchmarks.knowledge_retraction

schema: $(STAMP)
	$(BIN)/python tools/export_schema.py

constraints: $(STAMP)
	$(BIN)/pip install --quiet --upgrade -e '.[test]'
	( head -2 constraints.txt; $(BIN)/pip freeze --exclude-editable | grep -v '^-e' ) > constraints.new
	mv constraints.new constraints.txt

clean:
	rm -rf $(VENV) node_modules data
