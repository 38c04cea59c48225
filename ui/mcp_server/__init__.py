"""Daemon's memory served to MCP clients (stdio or token-protected HTTP)."""
