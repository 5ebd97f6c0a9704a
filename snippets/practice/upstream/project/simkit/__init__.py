"""simkit: similarity helpers for embeddings, and a small residual MLP."""
