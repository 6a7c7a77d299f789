"""The Run:ai evidence source: control-plane ops to RUNAI_URL, `k8s.*` ops to the Kubernetes API.

Both halves share one CallLog (the diagnosis' `calls`), one Recorder (`--capture`) and one
observer, so a diagnosis sees a single source whatever the transport (live, replay, simulator).
"""

from __future__ import annotations

from typing import Any

from diagnosis.evidence.answer import Answer
from diagnosis.evidence.source import HttpSource
from diagnosis.runai.routes import is_k8s_op
from diagnosis.runai.tier2_reasons import Tier2Reason, Tier2Unavailable


class RunaiSource:
    """Dispatches by op: `k8s.*` to the Tier-2 source (when there is one), the rest to Run:ai."""

    def __init__(
        self,
        *,
        control_plane: HttpSource,
        kubernetes: HttpSource | None,
        tier2_unavailable_reason: Tier2Unavailable | None = None,
    ) -> None:
        if kubernetes is not None and kubernetes.log is not control_plane.log:
            raise ValueError("the Run:ai and Kubernetes sources must share one CallLog")
        self.control_plane = control_plane
        self.kubernetes = kubernetes
        self.tier2_unavailable_reason = tier2_unavailable_reason

    @property
    def calls(self) -> list[str]:
        return self.control_plane.calls

    @property
    def base_url(self) -> str:
        return self.control_plane.base_url

    @property
    def deadline_seconds(self) -> float:
        return self.control_plane.deadline_seconds

    @property
    def deadline_reached(self) -> bool:
        return self.control_plane.deadline_reached or bool(
            self.kubernetes and self.kubernetes.deadline_reached
        )

    @property
    def tier2_available(self) -> bool:
        return self.kubernetes is not None

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        if is_k8s_op(op):
            if self.kubernetes is None:
                reason = self.tier2_unavailable_reason or Tier2Reason("word.no_k8s_credentials")
                return Answer(op=op, args=args, error=f"Tier 2 unavailable: {reason}")
            return await self.kubernetes.fetch(op, variant=variant, **args)
        return await self.control_plane.fetch(op, variant=variant, **args)
