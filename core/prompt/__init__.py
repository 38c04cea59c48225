"""Prompt assembly: the section registry, token counting, compression, budget fitting and the builder."""
