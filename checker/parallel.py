"""Independent checker jobs, each in a process of its own forked from the one that built the
symbolic situation and the translated rules.

Each job starts from that same state, whatever the number of cores (so the results do not
depend on the machine), and jobs run side by side when there are cores for it. Z3 terms
cannot be pickled: a worker gets its job by the fork and sends back plain results only.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
from contextlib import contextmanager
import traceback
from multiprocessing.connection import wait


_on_progress = None   # where progress goes: to the parent (in a worker), or to on_progress (here)
_in_worker = False
_kept_until_exit: list = []


def plan(steps: int) -> None:
    """The running job will call step() this many more times: the caller of in_forked_workers
    hears of it (on_progress(steps, 0)), so it can tell how much is left."""
    if _on_progress is not None:
        _on_progress(steps, 0)


def step() -> None:
    """One more step of the running job is done (on_progress(0, 1)), heard while it goes on."""
    if _on_progress is not None:
        _on_progress(0, 1)


@contextmanager
def reporting_to(phase):
    """Work done in this process inside the block reports its plan() and step() to this
    phase's progress (interpreter/progress.Phase)."""
    global _on_progress
    outer, _on_progress = _on_progress, phase.progress
    try:
        yield
    finally:
        _on_progress = outer


def keep_until_exit(value) -> None:
    """In a worker: `value` is not freed when the job lets go of it but with the whole process
    when the worker ends (a variant's questions leave tens of thousands of Z3 terms and a few
    solvers, whose freeing one by one takes 25 ms before the result could go). Elsewhere nothing:
    the caller's process goes on."""
    if _in_worker:
        _kept_until_exit.append(value)


def _child(sender, function, arguments) -> None:
    global _on_progress, _in_worker
    _in_worker = True
    # what the worker inherited (Z3's terms, the specs, the rules) lives as long as it does: out
    # of the cyclic garbage collector's sight, whose full passes would otherwise walk all of it
    # again and again (and copy the pages they touch)
    gc.freeze()
    _on_progress = lambda planned, done: sender.send(("progress", (planned, done)))
    try:
        sender.send(("ok", function(*arguments)))
    except BaseException as error:  # noqa: BLE001 - raised again in the parent
        try:
            sender.send(("raise", error))      # e.g. a BaobeiError the command reports as usual
        except Exception:  # noqa: BLE001 - an exception that does not pickle: its traceback
            sender.send(("error", traceback.format_exc()))
    finally:
        sender.close()


def in_forked_workers(function, argument_lists: list[tuple], on_done=None, on_progress=None,
                      after: dict[int, int] | None = None) -> list:
    """function(*arguments) for each argument list, each in its own forked process, as many
    at a time as there are cores; the results in order. `on_done(index, result)` as each ends;
    `on_progress(planned, done)` as the jobs call plan() and step(). `after`: job index -> the
    index of an earlier job it starts after (one whose kept answers answer most of its own); a
    free core meanwhile takes the next job that waits for nothing."""
    after = after or {}
    assert all(first < index for index, first in after.items()), "a job starts after an earlier one"
    if multiprocessing.current_process().daemon:
        # a pool's worker (baobei mutate judges mutants in one) may not start processes of its
        # own: its jobs run here, one after another, each from the state the previous one left
        return _inline(function, argument_lists, on_done, on_progress)
    context = multiprocessing.get_context("fork")
    cores = max(1, os.cpu_count() or 1)
    results: list = [None] * len(argument_lists)
    waiting = list(range(len(argument_lists)))
    running: dict = {}   # receiving end -> (job index, process)
    done: set[int] = set()
    try:
        while waiting or running:
            while len(running) < cores:
                ready = [index for index in waiting if index not in after or after[index] in done]
                if not ready:
                    break
                index = ready[0]
                waiting.remove(index)
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(sender, function, argument_lists[index]))
                process.start()
                sender.close()
                running[receiver] = (index, process)
            for receiver in wait(list(running)):
                index, process = running[receiver]
                try:
                    status, value = receiver.recv()
                except EOFError:
                    status, value = "error", f"the worker ended with exit code {process.exitcode}"
                if status == "progress":
                    if on_progress is not None:
                        on_progress(*value)
                    continue
                del running[receiver]
                process.join()
                if status == "raise":
                    raise value
                if status != "ok":
                    raise RuntimeError(f"a worker failed:\n{value}")
                results[index] = value
                done.add(index)
                if on_done is not None:
                    on_done(index, value)
    finally:  # a failure or an interrupt leaves no worker behind
        for _, process in running.values():
            process.terminate()
            process.join()
    return results


def _inline(function, argument_lists: list[tuple], on_done, on_progress) -> list:
    global _on_progress
    results, outer = [], _on_progress
    _on_progress = on_progress
    try:
        for index, arguments in enumerate(argument_lists):
            results.append(function(*arguments))
            if on_done is not None:
                on_done(index, results[-1])
    finally:
        _on_progress = outer
    return results
