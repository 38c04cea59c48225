"""The builders: objects made from the frozen config, what they open registered on the caller's ExitStack
(closed last opened first, so the data dir's lock, taken first, is released last)."""
