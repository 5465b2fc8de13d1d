"""Small real runs for the starter deck's checks: Gloo ranks, the profiler, autograd.

    python -c "from verify.measure.experiments.dist_probe import probe; print(probe(2)['tp'])"

``dist_probe`` runs everything that needs ranks in one launch per world size (cached per process);
``megatron`` is a tensor-parallel transformer layer; ``local`` measures in this process only.
"""
