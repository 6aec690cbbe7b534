"""Generation backends, the batched tree decoder, trajectory selection and the HTTP server.

Filled by the tree-decoder and server issues.
"""
