"""The terminal game: play (hot-seat or against the AI) and replay, line-based, standard library only."""
