"""What every front end shares: the input boundary, auth and bind checks, safe markdown, failures."""
