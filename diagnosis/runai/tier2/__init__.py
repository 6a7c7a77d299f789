"""Tier 2: read-only Kubernetes evidence for the failing pods of a workload, read with the
kubeconfig's credentials when Run:ai's own answers do not settle the cause.

For each failing pod (at most 8): the pod object (every container's state and last state), its
events, and the failing container's previous log (last 200 lines, 1 MB at most; on a 400 for the
previous log, the current log) — what `kubectl describe pod`, `kubectl logs --previous` and the
pod's events show. Nodes are read only for node-failure signals. All calls of one stage run
concurrently. A 401/403 never stops the diagnosis: the denied calls become one limitation naming
the RBAC needed.

- `evidence`: what Tier 2 found, and how a failed call is noted;
- `containers`: which container explains the failure, and its exit code, restarts and end time;
- `pods`: the pods' objects, logs and events;
- `nodes`: the nodes of a node-failure signal.
"""
