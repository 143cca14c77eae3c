# The two front doors: `make serve` and `make test`. Each sets up what it needs on a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: serve test bench neo4j neo4j-server browser schema constraints clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]' -c constraints.txt
	touch $(STAMP)

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch node_modules/.installed

# The Neo4j 5 Community server's jars, from Maven Central (tools/neo4j/pom.xml). Without Java and
# Maven there is nothing to fetch: the suite then says why it skips Neo4j (or uses Docker).
NEO4J_CP := tools/neo4j/target/classpath.txt
$(NEO4J_CP): tools/neo4j/pom.xml
	@if command -v mvn >/dev/null && command -v java >/dev/null; then \
	  mvn -q -B -f tools/neo4j/pom.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt.part \
	  && mv tools/neo4j/target/classpath.txt.part $@; \
	else echo "java or mvn not found: the local Neo4j server is not fetched"; fi

neo4j-server: $(NEO4J_CP)

# Debian's Chromium for the explorer's browser test (driven by playwright-core from npm).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "Chromium not installed (needs Debian's apt-get as root): the browser test will say it skipped"; fi

browser: $(CHROMIUM)

# A local Neo4j for a person: Bolt on 127.0.0.1:7687, Neo4j Browser on http://127.0.0.1:7474/browser/,
# data in neo4j-data/ (kept across restarts); Ctrl-C stops it cleanly.
neo4j: $(STAMP) $(NEO4J_CP)
	$(BIN)/python -m graph_service.storage.neo4j_server --home neo4j-data

serve: $(STAMP)
	$(BIN)/python -m graph_service serve

test: $(STAMP) node_modules/.installed neo4j-server browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n auto --dist loadscope --durations=30

bench: $(STAMP)
	$(BIN)/python -m benchmarks.knowledge_retraction
	$(BIN)/python -m benchmarks.log_proofs
	$(BIN)/python -m benchmarks.knowledge_incremental
	$(BIN)/python -m benchmarks.pure_apply
	$(BIN)/python -m benchmarks.read_pages --sizes 10000 100000
	$(BIN)/python -m benchmarks.service_shape --sizes 10000 100000
	$(BIN)/python -m benchmarks.time_travel --entries 10000
	$(BIN)/python -m benchmarks.knowledge_in_graph --sizes 10000 30000
	$(BIN)/python -m benchmarks.store_growth_writes --sizes 10000 40000

schema: $(STAMP)
	$(BIN)/python tools/export_schema.py

constraints: $(STAMP)
	$(BIN)/pip install --quiet --upgrade -e '.[test]'
	( head -2 constraints.txt; $(BIN)/pip freeze --exclude-editable | grep -v '^-e' ) > constraints.new
	mv constraints.new constraints.txt

clean:
	rm -rf $(VENV) node_modules data tools/neo4j/target
