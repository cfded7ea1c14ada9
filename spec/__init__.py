"""The rules of BAO BEI. Not Python: the .bao files here are the spec; this file only lets the baobei package find them."""
