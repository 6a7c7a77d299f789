"""Fixtures of the tools tests: a real Redis."""

from tests.fakes.redis_server import redis_url as redis_url
