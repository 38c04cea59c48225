"""Front ends attached to a Daemon already running on the data dir, and the routes it serves them."""
