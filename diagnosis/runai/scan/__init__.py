"""`diagnose runai scan`: every failed workload of a cluster (or one project) within the lookback,
each diagnosed through the normal workflow, concurrently, under one request-rate limit.

- `listing`: the list of failed workloads, read and filtered again on this side;
- `failure`: the scan's answer when the list itself cannot be read;
- `result`: scan/v1 of the diagnosed workloads, with the images and nodes each one used;
- `throttle`: the one request-rate limit that every request of a scan shares;
- `run`: the scan itself, live or over recorded answers;
- `markdown`: the scan report.
"""
