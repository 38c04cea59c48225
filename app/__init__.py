"""Daemon's composition root: `main.py` calls `app.entry.main`.

`app/commands/` holds one module per command (its arguments and its `run`) and the one list of them;
`app/builders/` wires the layers together, one module per capability (memory, models, tools, visual, and
the services a front end runs on), each registering what it opens on a `contextlib.ExitStack`. Nothing
outside `app/` (and its tests) imports it.
"""

VERSION = "0.1.0"
