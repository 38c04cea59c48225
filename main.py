"""Daemon, a local-first personal AI assistant that remembers: `python main.py --help`.

A thin entry: the composition root is the `app` package (its commands in `app/commands`, its builders in
`app/builders`). Nothing imports this file; the PyInstaller spec and the Docker image start it.
"""

import sys

from app.entry import main

if __name__ == "__main__":
    sys.exit(main())
