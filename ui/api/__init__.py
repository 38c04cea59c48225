"""The OpenAI-compatible HTTP API with memory."""
