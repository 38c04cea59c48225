"""One archive of everything a user owns in a data dir: written by `export`, read back by `import`.

`layout` names what an archive holds and the checks every archive passes; `databases` snapshots and merges
SQLite files; `writer` writes an archive, `reader` checks and unpacks one (untrusted input), `restore`
applies an unpacked archive to a data dir.
"""
