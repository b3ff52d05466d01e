# syntax=docker/dockerfile:1
# askdocs runtime image: onnxruntime + the prepared int8 models, no torch, a non-root user.
#
#   docker build -t askdocs .                      runtime with both default models baked in
#   docker build --target slim -t askdocs:slim .   no model: for releases built with bundle_model
#   docker run -p 8000:8000 askdocs --index https://docs.example.com/askdocs/current.json
#
# deploy/ has docker compose (N replicas + Redis + nginx) and Kubernetes manifests.

ARG PYTHON=python:3.11-slim-bookworm

# -- the askdocs wheel -------------------------------------------------------------------
FROM ${PYTHON} AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY askdocs askdocs
COPY plugin plugin
COPY edge_runtime edge_runtime
COPY widget widget
RUN pip wheel --no-cache-dir --no-deps -w /wheels .

# -- model export: torch and optimum live only in this throwaway stage -------------------
FROM ${PYTHON} AS model
# A CPU-only torch index keeps this stage small; any torch works (none of it reaches the image).
ARG TORCH_INDEX_URL=""
ENV ASKDOCS_HOME=/opt/askdocs PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=wheel /wheels /wheels
RUN pip install --no-cache-dir ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"} torch==2.13.0 \
 && pip install --no-cache-dir "$(ls /wheels/askdocs-*.whl)[export]" \
 && askdocs model prepare

# -- slim: the runtime without a model ---------------------------------------------------
FROM ${PYTHON} AS slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ASKDOCS_HOME=/opt/askdocs
COPY --from=wheel /wheels /wheels
RUN pip install --no-cache-dir /wheels/askdocs-*.whl && rm -rf /wheels \
 && useradd --system --uid 10001 --gid 0 --home-dir /opt/askdocs --create-home askdocs \
 && chmod g+rwX /opt/askdocs
USER 10001
EXPOSE 8000
# 503 while draining (SIGTERM) or failing: orchestrators stop routing and restart on their own.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# SIGTERM: stop accepting, let running answers finish for ASKDOCS_SHUTDOWN_GRACE seconds
# (default 10), end the rest with a retryable `error` event. Give the container more than that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["askdocs", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD ["--help"]

# -- runtime (default): slim + the prepared int8 models ----------------------------------
FROM slim AS runtime
COPY --from=model --chown=10001:0 /opt/askdocs/models /opt/askdocs/models
