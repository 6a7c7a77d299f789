"""The one shape of a failure-pattern row, shared by the Run:ai table, the ModelArts table and the
training-log table.

A row says, besides how it matches (a predicate over an observation, a text pattern, a log-line
pattern: each table adds its own `match` fields):

* `category`: the failure category it names (None for a row that routes or only confirms);
* `role`: `cause` (names a failure), `consequence` (follows another failure: a collective timeout
  after a peer died, a launcher reporting its child's death, a back-off limit reached: cited as
  such, never the root cause), `claim` (untrusted text claiming a failure the evidence around it
  contradicts: never the cause), or a routing/symptom role a platform's workflow reads;
* `direct`: whether the text names the failure itself (HIGH on its own) or only points at it
  (an exit code, a generic `ERROR` line: MEDIUM);
* `reads`: which answers and fields it reads, the citation a report's evidence carries;
* `outside_process`: whether it names a failure outside the training process (the node's
  hardware, the kernel's OOM killer, the scheduler, a time limit), which only the platform
  attests: the same words in the container's own output are a claim, which an exception of the
  code itself in that output contradicts;
* `meaning` and `fixes`: the ids of its messages in the platform's message catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from diagnosis.models import Category

Role = Literal["cause", "consequence", "preemption", "scheduling", "kill", "crash_loop", "pod_error", "claim"]


@dataclass(frozen=True, kw_only=True)
class Row:
    name: str
    category: Category | None = None
    role: Role = "cause"
    direct: bool = True
    reads: tuple[str, ...] = ()
    outside_process: bool = False
    meaning: str = ""
    fixes: tuple[str, ...] = ()

    @property
    def consequence(self) -> bool:
        return self.role == "consequence"
