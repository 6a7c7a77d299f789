"""ModelArts v2 operations <-> HTTP requests
(the ModelArts API reference: https://support.huaweicloud.com/intl/en-us/api-modelarts/).

One table drives the live signed client, bundle replay and the simulator. `ListTrainingJobs` is the
one POST: a read-only search whose body carries the page and the filters. Only the name filter
(and a page index past the first) identify its answer: paging sizes and sort order are not part
of what was asked. So the body builder takes
`name`, `offset` and `limit`, and `search_args` reads back only `name` and `offset`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from diagnosis.evidence.http.readonly import AllowedPost
from diagnosis.evidence.routes import Route, RouteTable

JOB = "/v2/{project_id}/training-jobs/{training_job_id}"
SEARCH_PATH = "/v2/{project_id}/training-job-searches"
SEARCH_PAGE_SIZE = 50  # the API's maximum page size
EVENTS_PAGE_SIZE = 100  # the runbook's `--limit=100`, also the API's maximum

READ_ONLY_POSTS = (
    AllowedPost(r"/v2/[^/]+/training-job-searches/?", "ListTrainingJobs: read-only job search"),
)


def _page(value: Any) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


def search_body(args: Mapping[str, Any]) -> bytes:
    """The JobSearches body: page index `offset`, `limit` ≤ 50, newest first, optional name filter."""
    limit = min(SEARCH_PAGE_SIZE, max(1, _page(args.get("limit")) or SEARCH_PAGE_SIZE))
    body: dict[str, Any] = {
        "offset": _page(args.get("offset")),
        "limit": limit,
        "sort_by": "create_time",
        "order": "desc",
    }
    name = args.get("name")
    if name:
        # `like` is the API's substring operator; the exact, case-sensitive match is picked from the
        # answer.
        body["filters"] = [{"key": "name", "operator": "like", "value": [str(name)]}]
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def search_args(body: bytes) -> dict[str, Any]:
    """The identifying args of a search body: the name filter's value and a page index past 0."""
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError("search body is not a JSON object")
    args: dict[str, Any] = {}
    for item in data.get("filters") or []:
        if isinstance(item, dict) and item.get("key") == "name":
            values = item.get("value")
            if isinstance(values, list) and values:
                args["name"] = str(values[0])
            elif isinstance(values, str) and values:
                args["name"] = values
    page = _page(data.get("offset"))
    if page:
        args["offset"] = page
    return args


ROUTES = RouteTable(
    [
        Route(
            "ListTrainingJobs",
            "POST",
            SEARCH_PATH,
            body_builder=search_body,
            body_args=search_args,
            body_keys=frozenset({"name", "offset", "limit"}),
        ),
        Route("ListTrainingJobEvents", "GET", JOB + "/events"),
        Route("ListTrainingJobStages", "GET", JOB + "/stages"),
        Route("ListTrainingJobTasks", "GET", JOB + "/tasks"),
        Route("ShowTrainingJobLogsPreview", "GET", JOB + "/tasks/{task_id}/logs/preview"),
        # The 5-minute full-log link: a credential to the log, fetched on demand only (logurl.py),
        # never in a diagnosis.
        Route("ShowObsUrlOfTrainingJobLogs", "GET", JOB + "/tasks/{task_id}/logs/url"),
        Route("ShowTrainingJobMetrics", "GET", JOB + "/metrics/{task_id}"),
        # The platform's own log-based diagnosis of the job (documented API, not in the SDK yet):
        # https://support.huaweicloud.com/api-modelarts/ShowTrainingJobUserDiagnosis.html
        Route("ShowTrainingJobUserDiagnosis", "GET", JOB + "/diagnosis"),
        Route("ShowTrainingJobDetails", "GET", JOB),
    ]
)

# Operations a diagnosis may call (the log URL is absent on purpose: IAM classes its action as a
# write, and its answer is a short-lived credential).
DIAGNOSIS_OPS = frozenset(
    {
        "ListTrainingJobs",
        "ShowTrainingJobDetails",
        "ListTrainingJobEvents",
        "ListTrainingJobStages",
        "ListTrainingJobTasks",
        "ShowTrainingJobLogsPreview",
        "ShowTrainingJobMetrics",
        "ShowTrainingJobUserDiagnosis",
    }
)
