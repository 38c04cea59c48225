"""The user's documents: extraction (`extract`), chunking (`chunk`), the ingest pipeline (`pipeline`) and the
catalogue of what is stored (`catalogue`). Writes go through the `DocumentStore` port (`port`), which the
memory layer implements; this package never imports memory."""
