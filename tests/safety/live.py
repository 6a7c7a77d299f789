"""Live diagnoses against the simulator: the real clients (token auth, AK/SK signing, ReadOnlyGuard,
Retrying, sockets) talking to `diagnose sim` on a loopback port, one scenario bundle at a time.

One SimServer serves the whole run (starting one costs time); `serve` swaps in a bundle's exchanges
and faults. Configuration comes as the product reads it: Run:ai settings and a kubeconfig file,
ModelArts keys, project id and endpoint from the SDK's environment variables.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.http.retrying import RetryPolicy
from diagnosis.evidence.source import Recorder
from diagnosis.modelarts.client import bundle_project_id
from diagnosis.modelarts.settings import DEFAULT_REGION, region_env_name
from diagnosis.models import Diagnosis
from diagnosis.runai.settings import RunaiSettings
from simulator.server import Fault, SimServer

RUNAI_CLIENT_ID = "safety-client"
RUNAI_CLIENT_SECRET = "safety-client-secret-0001"
MODELARTS_AK = "SAFETYACCESSKEY00001"
MODELARTS_SK = "safety-secret-key-0001"
UNKNOWN_PROJECT = "0123456789abcdef0123456789abcdef"

# Environment variables that would make a live run read something other than the rig's settings.
_FOREIGN_VARIABLES = (
    "KUBERNETES_SERVICE_HOST",
    "HUAWEICLOUD_SDK_SECURITY_TOKEN",
    "HUAWEICLOUD_SDK_REGIONS_FILE",
    "HCLOUD_PROFILE",
    "RUNAI_URL",
    "RUNAI_CLIENT_ID",
    "RUNAI_CLIENT_SECRET",
    "KUBECONFIG",
)


@contextmanager
def environment(values: Mapping[str, str], *, remove: tuple[str, ...] = ()) -> Iterator[None]:
    """Set and unset environment variables for the block, then put back what was there."""
    saved = {name: os.environ.get(name) for name in [*values, *remove]}
    try:
        for name in remove:
            os.environ.pop(name, None)
        os.environ.update(values)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass(frozen=True)
class Budget:
    """Client timeouts and retry budget of a live run (small in tests), and the hang deadline."""

    timeout_seconds: float = 5.0
    attempts: int = 3
    base_delay: float = 0.01
    max_delay: float = 0.05
    retry_deadline: float = 5.0
    deadline_seconds: float = 20.0

    def options(self) -> dict[str, Any]:
        return {
            "timeout": self.timeout_seconds,
            "retry_policy": RetryPolicy(
                attempts=self.attempts,
                base_delay=self.base_delay,
                max_delay=self.max_delay,
                deadline=self.retry_deadline,
            ),
            "deadline_seconds": self.deadline_seconds,
        }


class Hung(Exception):
    """A live diagnosis did not come back within its deadline."""


@dataclass
class LiveResult:
    diagnosis: Diagnosis
    recorder: Recorder | None
    seconds: float
    requests: list[tuple[str, str]]


class LiveRig:
    """The simulator, a kubeconfig pointing at it, and the environment both platforms read."""

    def __init__(self, *, timeout_hold_seconds: float = 2.0) -> None:
        self.sim = SimServer(
            [], modelarts_keys=(MODELARTS_AK, MODELARTS_SK), timeout_hold_seconds=timeout_hold_seconds
        )
        self._folder = tempfile.TemporaryDirectory(prefix="safety-live-")
        self.home = Path(self._folder.name)
        self.kubeconfig = self.home / "kubeconfig"

    def __enter__(self) -> LiveRig:
        self.sim.start()
        self.kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\n"
            f"clusters:\n- name: sim\n  cluster:\n    server: {self.sim.base_url}\n"
            "users:\n- name: reader\n  user:\n    token: sim-read-only-token\n"
            "contexts:\n- name: sim\n  context: {cluster: sim, user: reader}\ncurrent-context: sim\n",
            encoding="utf-8",
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self.sim.stop()
        self._folder.cleanup()

    def serve(self, bundle: Bundle, *, faults: Mapping[str, list[Fault]] | None = None) -> None:
        """Answer from this bundle only, with these faults; forget earlier requests."""
        for table in self.sim.tables.values():
            table.exchanges = list(bundle.exchanges) if table.platform == bundle.platform else []
        # Between runs nothing else talks to the simulator: plain assignments are enough.
        self.sim.faults = {op: list(items) for op, items in (faults or {}).items()}
        self.sim.requests.clear()
        self.sim.ops.clear()

    def _runai_settings(self, bundle: Bundle) -> RunaiSettings:
        has_k8s = any(exchange.op.startswith("k8s.") for exchange in bundle.exchanges)
        return RunaiSettings(
            runai_url=self.sim.base_url,
            runai_client_id=RUNAI_CLIENT_ID,
            runai_client_secret=SecretStr(RUNAI_CLIENT_SECRET),
            # Tier 2 live exactly when the bundle had it (rulings G2).
            kubeconfig=str(self.kubeconfig if has_k8s else self.home / "absent-kubeconfig"),
        )

    def modelarts_environment(self, bundle: Bundle) -> dict[str, str]:
        region = str(bundle.request.get("region") or DEFAULT_REGION)
        return {
            "HOME": str(self.home),
            "HUAWEICLOUD_SDK_AK": MODELARTS_AK,
            "HUAWEICLOUD_SDK_SK": MODELARTS_SK,
            "HUAWEICLOUD_SDK_PROJECT_ID": bundle_project_id(bundle) or UNKNOWN_PROJECT,
            "HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(self.home / "no-credentials"),
            region_env_name(region): self.sim.base_url,
        }

    async def diagnose(
        self, bundle: Bundle, *, budget: Budget | None = None, capture: bool = False, lang: str | None = None
    ) -> LiveResult:
        """The live diagnosis of the bundle's request; `Hung` past the budget's deadline."""
        budget = budget or Budget()
        request = engine.request_from_bundle(bundle)
        options = budget.options()
        values: dict[str, str] = {}
        if bundle.platform == "runai":
            options["settings"] = self._runai_settings(bundle)
        else:
            values = self.modelarts_environment(bundle)
        started = time.monotonic()

        async def run() -> tuple[Diagnosis, Recorder | None]:
            async with engine.live(request, capture=capture, **options) as (source, recorder):
                diagnosis = await engine.diagnose_with(request, source, now=bundle.captured_at, lang=lang)
            return diagnosis, recorder

        with environment(values, remove=_FOREIGN_VARIABLES):
            try:
                # The hang deadline is wider than the diagnosis deadline: past it, something hangs.
                diagnosis, recorder = await asyncio.wait_for(run(), budget.deadline_seconds + 5.0)
            except TimeoutError:
                raise Hung(f"no diagnosis within {budget.deadline_seconds + 5.0:g} s") from None
        requests = list(self.sim.requests)
        return LiveResult(diagnosis, recorder, time.monotonic() - started, requests)
