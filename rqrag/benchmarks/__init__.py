"""The benchmarks' raw records and their fixed train/eval id splits, shared by data construction and eval.

`sources` turns each benchmark's own format into `SourceExample`s; `splits` holds which ids are held out.
"""
