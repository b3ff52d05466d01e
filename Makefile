# The two commands in the README: `make demo` and `make test`.
VENV := .venv
PORT ?= 8000

.PHONY: setup demo test test-fast bench eval lint fuzz

setup:
	scripts/setup.sh

demo: setup
	$(VENV)/bin/mkdocs build -f site_example/mkdocs.yml -d site
	ASKDOCS_RATE_LIMIT=off $(VENV)/bin/askdocs serve site_example/site --port $(PORT)

test: setup
	$(VENV)/bin/python -m pytest -q

test-fast:
	$(VENV)/bin/python -m pytest -q -m "not slow and not browser"

bench: setup
	$(VENV)/bin/python benchmarks/embed_bench.py
	$(VENV)/bin/python benchmarks/build_bench.py
	$(VENV)/bin/python benchmarks/search_bench.py
	$(VENV)/bin/python benchmarks/rerank_bench.py
	$(VENV)/bin/python benchmarks/relevance_bench.py
	$(VENV)/bin/python benchmarks/chat_bench.py
	$(VENV)/bin/python benchmarks/scale_bench.py
	$(VENV)/bin/python benchmarks/build_scale_bench.py
	$(VENV)/bin/python benchmarks/memory_bench.py
	$(VENV)/bin/python benchmarks/load_bench.py
	$(VENV)/bin/python benchmarks/fault_bench.py
	$(VENV)/bin/python benchmarks/llm_bench.py
	test -f .artifacts/eval/asciidoctor/index.html || scripts/fetch_fresh.sh generators
	$(VENV)/bin/python benchmarks/generators_bench.py

fuzz: setup
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-2000} $(VENV)/bin/python -m pytest -q tests/test_schema_fuzz.py

eval: setup
	scripts/eval.sh

lint:
	$(VENV)/bin/ruff check askdocs plugin edge_runtime tests benchmarks
