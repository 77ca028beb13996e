"""Integrations with evaluation harnesses and RL trainers, one module per framework; each imports
its framework only when it is used (``pip install toolcall_f1[<framework>]``)."""
