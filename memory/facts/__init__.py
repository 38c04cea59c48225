"""Facts the user states: rule-based extraction into (subject, predicate, object) triples."""
