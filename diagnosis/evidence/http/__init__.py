"""The HTTP stack every platform client uses: read-only guard, retries with backoff, a shared throttle.

Order on the way out: ReadOnlyGuard -> Retrying -> the real (or replay) transport.

- `transport`: the socket-level transport (certificates, the environment's proxy);
- `readonly`: the read-only guard; `retrying`: retries within the deadline (`deadline`);
- `throttle`: the shared request rate; `size_cap`: the largest answer read.
"""
