"""Stage 2, knowledge: the knowledge base, the code and error-bit tables, address arithmetic and the fact vocabulary."""
