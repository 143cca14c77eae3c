# The service image for docker-compose: the API on Neo4j (NEO4J_URI) or on the embedded FalkorDB.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY graph_service ./graph_service
COPY cypher ./cypher
RUN pip install --no-cache-dir -e . -c constraints.txt && useradd --create-home app && mkdir /data && chown app /data
USER app
ENV GRAPH_SERVICE_HOST=0.0.0.0 GRAPH_SERVICE_DATA=/data
EXPOSE 8000
HEALTHCHECK --interval=5s --timeout=3s --retries=20 CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/readyz').status == 200 else 1)"
CMD ["python", "-m", "graph_service", "serve"]
