"""The no-op task of the Dask runs, in its own module so the worker imports it (on PYTHONPATH)
and the client pickles a reference to it rather than the function's code."""


def noop(_item):
    return None
