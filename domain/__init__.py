"""Pure rules and the match aggregate: standard library and eventsourcing only."""
