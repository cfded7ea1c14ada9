"""Batches of games on all cores, or on a Ray cluster, handed back in batch order.

A job is plain picklable data: the rules travel as their source (config paths and
variant, interpreter/rules.py: RulesSource), never as compiled code, and each worker
process loads them once and keeps them. Results are handed on as they come, in batch
order (a batch that finishes early waits only for those before it), so what is merged from
them does not depend on the number of workers, and memory stays flat however many games a
study has.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from collections.abc import Callable, Iterator

from baobei.dsl.errors import BaobeiError, ConfigError

from .rules import Rules, RulesSource

_RULES: dict[bytes, Rules] = {}     # this process's rules, by source


def cores() -> int:
    return max(1, os.cpu_count() or 1)


def where(workers: int, ray: str | None) -> str:
    """Where jobs run, as a report says it."""
    if ray:
        return f"on the Ray cluster {ray}"
    return "in this process" if workers == 1 else f"on {workers} worker processes"


def remember(rules: Rules) -> None:
    """This process already holds these rules: jobs played here use them as they are."""
    _RULES[pickle.dumps(rules.source)] = rules


def rules_for(source: RulesSource, version: str) -> Rules:
    """The rules of a source, loaded once per process. `version` is the fingerprint the
    driving process loaded: a worker (another machine of a cluster) whose files differ says so
    instead of playing other rules."""
    key = pickle.dumps(source)
    if key not in _RULES:
        _RULES[key] = source.load()
    rules = _RULES[key]
    if rules.version != version:
        raise ConfigError(f"the rules at {source.config.spec_dir} on this worker are version {rules.version}, "
                          f"the study's are {version}: every machine needs the same rules project")
    return rules


def in_order(function: Callable, jobs: list, *, workers: int = 1, ray: str | None = None) -> Iterator:
    """(index, function(job)) for each job, in the order of the jobs: in this process with one
    worker, in a pool of `workers` processes, or as tasks of the Ray cluster at `ray`
    ("auto": the cluster Ray finds, or one started here on this machine's cores)."""
    if ray is not None:
        yield from _on_ray(function, jobs, ray)
    elif workers <= 1 or len(jobs) <= 1:
        for index, job in enumerate(jobs):
            yield index, function(job)
    else:
        yield from _in_pool(function, jobs, workers)


def _worker_signals() -> None:
    # Ctrl-C reaches the whole process group: the driving process handles it and ends the pool,
    # by SIGTERM, which ends a worker plainly (whatever handler the driving process had installed)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _in_pool(function: Callable, jobs: list, workers: int) -> Iterator:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    pool = multiprocessing.get_context(method).Pool(min(workers, len(jobs)), initializer=_worker_signals)
    finished = False
    try:
        yield from enumerate(pool.imap(function, jobs, chunksize=1))
        finished = True
    finally:  # an error, an interrupt or a caller that stops early leaves no worker behind
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def ray_module():
    try:
        import ray
    except ImportError:
        raise ConfigError("--ray needs Ray: pip install 'baobei[cluster]'") from None
    return ray


def ray_init_options() -> dict:
    """How baobei starts or joins Ray (the tests' cluster too): quietly, without a dashboard,
    and with an empty working folder. Without a working folder Ray puts the driving process's
    current folder first on its workers' import path, and a source checkout's baobei/ folder,
    which alone is not the package, would hide the installed package from them."""
    import logging
    import tempfile
    from pathlib import Path
    folder = Path(tempfile.gettempdir()) / "baobei-ray-working-folder"
    folder.mkdir(exist_ok=True)
    return {"logging_level": logging.ERROR, "include_dashboard": False, "runtime_env": {"working_dir": str(folder)}}


def _connect(ray, address: str) -> bool:
    """Connect to the cluster (once per process); True when this call started Ray."""
    if ray.is_initialized():
        return False
    try:
        ray.init(address=None if address == "auto" else address, **ray_init_options())
    except (ConnectionError, ValueError, RuntimeError) as error:
        raise ConfigError(f"--ray {address}: no Ray cluster could be reached ({error})") from None
    return True


def _on_ray(function: Callable, jobs: list, address: str) -> Iterator:
    ray = ray_module()
    started = _connect(ray, address)
    remote = ray.remote(function)
    window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: dict = {}      # object ref -> job index
    finished: dict = {}     # job index -> result, until its turn comes
    submitted = handed = 0
    try:
        while handed < len(jobs):
            while submitted < len(jobs) and len(pending) + len(finished) < window:
                pending[remote.remote(jobs[submitted])] = submitted
                submitted += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                finished[pending.pop(ref)] = _result(ray, ref)
            while handed in finished:
                yield handed, finished.pop(handed)
                handed += 1
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _result(ray, ref):
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        cause = getattr(error, "cause", None)
        if isinstance(cause, BaobeiError):
            raise cause from None   # bad rules met in a worker: reported like any other
        raise
