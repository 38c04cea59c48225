"""Synthesis: connections between distant ideas in the user's memory, found cheaply and filtered hard.

Generators (retrieval by structure, graph walks, a model bridging two stores) propose candidates; the
seven-stage filter (`stages.py`) rejects almost all of them, each rejection with its stage and figure; what
survives waits in a blind audit queue (`book.py`), and what the user accepts is kept in `synthesis_results`.
"""
