"""The Model Context Protocol face: the engine's read-only diagnoses as tools for AI assistants.

`diagnose mcp` serves them over stdio (a local assistant, the local user's own identity) and
`diagnose mcp --http --port N` over streamable HTTP (a shared deployment: one bearer token per
client, mapped to the clusters, projects and regions it may diagnose). The package is named
`mcp_face`, not `mcp`, so that it never shadows the MCP SDK it is built on.
"""
