"""The compose file's partitions (issue 34): matches spread over two PostgreSQL servers, each one a service the API
and the projector wait for, the first partition the shared store. Docker does not run here: the file is parsed."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import yaml

from service.settings import Settings

COMPOSE = Path(__file__).resolve().parent.parent / "deploy" / "compose.yaml"


def _services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_the_compose_file_partitions_matches_over_two_postgresql_servers_it_runs():
    services = _services()
    for name in ("api", "projector"):
        environment = services[name]["environment"]
        # The API's witnesses are named at start from the witnesses' public keys (tests/test_packaging.py checks that
        # wiring); the partitions are read here alone.
        settings = Settings.from_env(
            {key: str(value) for key, value in environment.items() if not key.startswith("GAMBIT_WITNESS")}
        )
        hosts = [urlparse(url).hostname for url in settings.partition_urls]
        assert len(set(hosts)) == 2, "two servers"
        assert settings.partition_urls[0] == environment["GAMBIT_DATABASE_URL"], (
            "the shared store is the first partition: matches made before partitioning stay found"
        )
        for host in hosts:
            assert services[host]["image"].startswith("postgres:")
            assert "healthcheck" in services[host]
            assert services[name]["depends_on"][host] == {"condition": "service_healthy"}


def test_each_partition_server_keeps_its_data_in_a_volume_of_its_own():
    compose = yaml.safe_load(COMPOSE.read_text())
    servers = [name for name, service in compose["services"].items() if service.get("image", "").startswith("postgres")]
    mounts = [compose["services"][name]["volumes"][0].split(":")[0] for name in servers]
    assert len(servers) == 2 and len(set(mounts)) == 2
    assert set(mounts) <= set(compose["volumes"])
