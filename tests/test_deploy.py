"""The deployment files, checked as far as this machine can without Docker or a cluster:
YAML that parses and holds together (kubeconform-like structural checks), settings the
runtime knows, `nginx -t` on the shipped config, and a Dockerfile that runs as non-root
with a health check and no torch in the runtime image."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import yaml
from askdocs.edge_runtime.settings import KNOWN_ENV, Settings

from tests.procs import binary

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
GRACE_DEFAULT = 10.0


def docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def k8s() -> list[dict]:
    return [d for path in sorted((DEPLOY / "k8s").glob("*.yaml")) for d in docs(path)]


def test_every_k8s_object_is_well_formed():
    objects = k8s()
    kinds = {o["kind"] for o in objects}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler"} <= kinds
    for o in objects:
        assert o.get("apiVersion") and o.get("kind") and o.get("metadata", {}).get("name"), o
    by_kind: dict[str, dict[str, dict]] = {}
    for o in objects:
        by_kind.setdefault(o["kind"], {})[o["metadata"]["name"]] = o
    for deployment in by_kind["Deployment"].values():
        spec = deployment["spec"]
        labels = spec["template"]["metadata"]["labels"]
        assert spec["selector"]["matchLabels"].items() <= labels.items()
        for container in spec["template"]["spec"]["containers"]:
            assert container["image"] and container["ports"]
    for service in by_kind["Service"].values():
        targets = [
            d for d in by_kind["Deployment"].values()
            if service["spec"]["selector"].items() <= d["spec"]["template"]["metadata"]["labels"].items()
        ]  # fmt: skip
        assert targets, f"service {service['metadata']['name']} selects no deployment"
        ports = {
            p.get("name") for c in targets[0]["spec"]["template"]["spec"]["containers"] for p in c["ports"]
        }
        ports |= {
            p["containerPort"]
            for c in targets[0]["spec"]["template"]["spec"]["containers"]
            for p in c["ports"]
        }
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports
    for hpa in by_kind["HorizontalPodAutoscaler"].values():
        target = hpa["spec"]["scaleTargetRef"]
        assert target["kind"] == "Deployment" and target["name"] in by_kind["Deployment"]
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    for ingress in by_kind.get("Ingress", {}).values():
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                assert path["backend"]["service"]["name"] in by_kind["Service"]


def test_the_askdocs_deployment_probes_drains_and_runs_as_non_root():
    deployment = next(o for o in k8s() if o["kind"] == "Deployment" and o["metadata"]["name"] == "askdocs")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    for probe in ("readinessProbe", "livenessProbe"):
        check = container[probe]["httpGet"]
        assert check["path"] == "/healthz" and (check["port"] in ports or check["port"] in ports.values())
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert set(env) <= set(KNOWN_ENV) | {"OPENAI_BASE_URL", "OPENAI_API_KEY"}
    assert env["ASKDOCS_REDIS_URL"].startswith("redis://askdocs-redis:")
    grace = float(env.get("ASKDOCS_SHUTDOWN_GRACE") or GRACE_DEFAULT)
    assert pod["terminationGracePeriodSeconds"] > grace + 5  # preStop sleep + the drain
    # ingress-nginx keeps idle upstream connections 60 s: the replica keeps them longer.
    assert float(env["ASKDOCS_KEEP_ALIVE"]) > 60
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["args"][0] == "--index" and container["args"][1].endswith("/current.json")


def test_compose_runs_replicas_behind_nginx_with_redis():
    compose = docs(DEPLOY / "compose.yaml")[0]
    services = compose["services"]
    assert {"askdocs", "redis", "nginx"} <= set(services)
    askdocs = services["askdocs"]
    env = askdocs["environment"]
    assert set(env) <= set(KNOWN_ENV)
    assert env["ASKDOCS_REDIS_URL"] == "redis://redis:6379/0"
    assert askdocs["deploy"]["replicas"] >= 2
    stop = float(re.match(r"(\d+)s", askdocs["stop_grace_period"]).group(1))
    assert stop > float(env["ASKDOCS_SHUTDOWN_GRACE"])
    subnet = compose["networks"]["askdocs"]["ipam"]["config"][0]["subnet"]
    assert env["ASKDOCS_TRUSTED_PROXIES"] == subnet  # nginx's address, nobody else's
    for volume in services["nginx"]["volumes"]:
        assert (DEPLOY / volume.split(":")[0]).is_file()
    assert (
        askdocs["build"]["dockerfile"] == "Dockerfile"
        and (DEPLOY / askdocs["build"]["context"] / "Dockerfile").is_file()
    )


def test_the_shipped_nginx_config_passes_nginx_t(tmp_path):
    config = (DEPLOY / "nginx" / "nginx.conf").read_text()
    config = config.replace("askdocs:8000", "127.0.0.1:8000")
    config = config.replace(
        "/etc/nginx/askdocs.locations.conf", str(DEPLOY / "nginx" / "askdocs.locations.conf")
    )
    config = config.replace("events {", f"pid {tmp_path}/nginx.pid;\nevents {{", 1)
    (tmp_path / "nginx.conf").write_text(config)
    result = subprocess.run(
        [binary("nginx"), "-t", "-c", str(tmp_path / "nginx.conf"), "-e", str(tmp_path / "error.log"),
         "-g", f"error_log {tmp_path}/error.log;"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # nginx drops idle upstream connections before a replica does (else a chat POST sent on
    # one the replica is closing is reset and not retried: a 502).
    upstream = config[config.index("upstream askdocs") :].split("}")[0]
    timeout = re.search(r"keepalive_timeout (\d+)s;", upstream)
    assert timeout and int(timeout.group(1)) < Settings(index="x").keep_alive, upstream
    locations = (DEPLOY / "nginx" / "askdocs.locations.conf").read_text()
    chat = locations[locations.index("location = /api/chat") :].split("}")[0]
    assert "proxy_buffering off" in chat and "proxy_read_timeout 1h" in chat
    assert "$proxy_add_x_forwarded_for" in locations


def dockerfile_stages() -> dict[str, list[tuple[str, str]]]:
    stages: dict[str, list[tuple[str, str]]] = {}
    current = None
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            current = rest.split(" AS ")[-1].strip() if " AS " in rest else rest
            stages[current] = [("FROM", rest)]
        elif current is not None:
            stages[current].append((instruction, rest.strip()))
    return stages


def test_the_dockerfile_runs_askdocs_as_non_root_with_a_health_check_and_no_torch():
    stages = dockerfile_stages()
    final = list(stages)[-1]
    chain = [final]
    while (base := stages[chain[-1]][0][1].split()[0]) in stages:
        chain.append(base)
    runtime = [step for stage in reversed(chain) for step in stages[stage]]
    users = [rest for instruction, rest in runtime if instruction == "USER"]
    assert users and users[-1] not in ("root", "0")
    health = [rest for instruction, rest in runtime if instruction == "HEALTHCHECK"]
    assert health and "/healthz" in health[-1]
    entry = [rest for instruction, rest in runtime if instruction == "ENTRYPOINT"]
    assert entry and shlex.split(entry[-1].strip("[]").replace(",", " "))[:2] == ["askdocs", "serve"]
    installs = " ".join(rest for instruction, rest in runtime if instruction == "RUN")
    assert "torch" not in installs and "[export]" not in installs  # torch lives in the model stage only
    assert "torch" in " ".join(rest for instruction, rest in stages["model"] if instruction == "RUN")
    copied = [rest for instruction, rest in runtime if instruction == "COPY" and "--from=" in rest]
    assert any("--from=model" in c and "models" in c for c in copied)
    assert ("STOPSIGNAL", "SIGTERM") in runtime
