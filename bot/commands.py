"""What a user can ask for, once parsed: a diagnosis (with the identifiers found so far), a scan, an
explanation, the help, or the reason the text could not be used."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from bot.words import UUID
from diagnosis.models import DiagnoseRequest, Intent, Platform

IDENTIFIER_KEYS = ("job_id", "job_name", "region", "cluster_id", "workload_id", "workload_name", "project")
OPTION_KEYS = ("lookback", "intent")

LANGS = ("en", "zh", "fr", "ja")


class RequestDraft(BaseModel):
    """A diagnosis request being assembled: what was given so far; the platform may be unknown."""

    platform: Platform | None = None
    job_id: str | None = None
    job_name: str | None = None
    region: str | None = None
    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: str | None = None
    intent: Intent | None = None

    def missing(self) -> list[str]:
        """Keys still needed before a diagnosis can start, in the order they are asked."""
        if self.platform is None:
            return ["platform"]
        if self.platform == "runai":
            wanted: list[str] = []
            if not self.cluster_id:
                wanted.append("cluster_id")
            if not self.workload_id and not self.workload_name:
                wanted.append("workload_name")
            elif not self.workload_id and not self.project:
                wanted.append("project")
            return wanted
        return [] if self.job_id or self.job_name else ["job"]

    def with_answer(self, key: str, value: str) -> RequestDraft:
        """The draft with one question answered (`job` is an id or a name, as on the command line)."""
        data = self.model_dump()
        if key == "platform":
            data["platform"] = value if value in ("runai", "modelarts") else None
            if value == "modelarts":
                # A platform-less draft keeps its identifier under the workload fields.
                data["job_name"] = data["job_name"] or data.pop("workload_name")
                data["job_id"] = data["job_id"] or data.pop("workload_id")
        elif key == "job":
            data["job_id" if UUID.fullmatch(value) else "job_name"] = value
        elif key in ("past_run", "workload"):
            # Run:ai's "did you mean a past run?" (a running workload with no crash symptom): the
            # answer names that run, by id or by name.
            data["workload_id" if UUID.fullmatch(value) else "workload_name"] = value
        elif key in data:
            data[key] = value
        return RequestDraft.model_validate(data)

    def to_request(self) -> DiagnoseRequest:
        if self.platform is None:
            raise ValueError("platform unknown")
        excluded = {"platform"} if self.platform == "runai" else {"platform", "lookback", "intent"}
        fields = self.model_dump(exclude_none=True, exclude=excluded)
        return DiagnoseRequest(platform=self.platform, **fields)

    def identifiers(self) -> dict[str, str]:
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k in IDENTIFIER_KEYS}

    def as_command(self) -> str:
        """The `/diagnose` words that ask for this request (`runai cluster=… workload=… project=…`)."""
        names = {
            "cluster_id": "cluster",
            "workload_name": "workload",
            "workload_id": "id",
            "job_id": "job",
            "job_name": "job",
        }
        words: list[str] = [self.platform or ""]
        for key, value in self.model_dump(exclude_none=True, exclude={"platform"}).items():
            words.append(f"{names.get(key, key)}={value}")
        return " ".join(word for word in words if word)

    def describe(self) -> str:
        """`runai workload train-42 (project ml-team, cluster prod-a)`: plain text, for progress lines."""
        if self.platform == "runai":
            main = f"workload {self.workload_id or self.workload_name or '?'}"
            extra = [
                f"project {self.project}" if self.project else "",
                f"cluster {self.cluster_id}" if self.cluster_id else "",
            ]
        elif self.platform == "modelarts":
            main = f"job {self.job_id or self.job_name or '?'}"
            extra = [f"region {self.region}" if self.region else ""]
        else:
            name = self.workload_id or self.workload_name or self.job_id or self.job_name or "?"
            return f"job {name}"
        details = ", ".join(part for part in extra if part)
        platform = "Run:ai" if self.platform == "runai" else "ModelArts"
        return f"{platform} {main}" + (f" ({details})" if details else "")

    def missing_for_scan(self) -> list[str]:
        """What a scan still needs: a Run:ai scan never guesses its cluster; ModelArts needs nothing."""
        return ["cluster_id"] if self.platform == "runai" and not self.cluster_id else []

    def describe_scan(self) -> str:
        """`Run:ai cluster prod-a (project ml-team, last 7d)`: what a scan covers, in plain text."""
        if self.platform == "runai":
            extra = [
                f"project {self.project}" if self.project else "",
                f"last {self.lookback}" if self.lookback else "",
            ]
            details = ", ".join(part for part in extra if part)
            return f"Run:ai cluster {self.cluster_id or '?'}" + (f" ({details})" if details else "")
        return "ModelArts" + (f" region {self.region}" if self.region else "")


class DiagnoseCommand(BaseModel):
    kind: Literal["diagnose"] = "diagnose"
    draft: RequestDraft
    lang: str | None = None


class ScanCommand(BaseModel):
    """`scan modelarts [region=…]` or `scan runai cluster=<id> [project=<p>] [lookback=7d]`."""

    kind: Literal["scan"] = "scan"
    platform: Platform
    region: str | None = None
    cluster_id: str | None = None
    project: str | None = None
    lookback: str | None = None
    lang: str | None = None

    def draft(self) -> RequestDraft:
        """What the scan covers, as a draft (the cluster may still be missing: it is then asked)."""
        return RequestDraft(
            platform=self.platform,
            region=self.region,
            cluster_id=self.cluster_id,
            project=self.project,
            lookback=self.lookback,
        )


class ExplainCommand(BaseModel):
    kind: Literal["explain"] = "explain"
    code: str
    lang: str | None = None


class HelpCommand(BaseModel):
    kind: Literal["help"] = "help"


class UsageProblem(BaseModel):
    """Input the grammar cannot use. `problem` is the English sentence (audit, logs); `code` and
    `values` let the bot say it in the channel's language (label `usage.<code>`)."""

    kind: Literal["usage"] = "usage"
    problem: str
    code: str = "generic"
    values: dict[str, str] = Field(default_factory=dict)


def usage_problem(code: str, english: str, **values: str) -> UsageProblem:
    return UsageProblem(problem=english, code=code, values=values)


Command = Annotated[
    DiagnoseCommand | ScanCommand | ExplainCommand | HelpCommand | UsageProblem, Field(discriminator="kind")
]
