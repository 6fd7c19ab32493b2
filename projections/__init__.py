"""Read models: records and views per viewer, replay frames, the bluff audit, match indexes."""
