"""Huawei Cloud ModelArts training-job diagnosis: signed client, five-phase workflow, reports, scan."""
