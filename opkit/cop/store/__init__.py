"""Stage 5, store: modules kept by key in the compiledir, their upkeep, shipped modules."""
