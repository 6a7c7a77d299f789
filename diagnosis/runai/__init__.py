"""NVIDIA Run:ai: read-only client, optional Tier-2 Kubernetes evidence, the runbook workflow and reports."""
