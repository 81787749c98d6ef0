# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The worker threads of the package (``n_jobs``).

Compiled passes release the GIL, so threads run them in parallel.  The
threads are kept in one pool for the life of the process: starting threads
at every epoch of a fit, or at every ``predict`` call, would cost about as
much as a small pass, and an idle pool thread costs nothing.
"""

import os
from concurrent.futures import ThreadPoolExecutor

# (process id, number of workers, pool): a forked child inherits the pool but
# not its threads, so it makes its own.
_pool = None


def thread_pool(n_workers):
    """The package's pool, with at least ``n_workers`` threads."""
    global _pool
    pid = os.getpid()
    if _pool is None or _pool[0] != pid or _pool[1] < n_workers:
        if _pool is not None and _pool[0] == pid:
            _pool[2].shutdown(wait=False)
        _pool = (pid, n_workers, ThreadPoolExecutor(
            max_workers=n_workers, thread_name_prefix="sklearn_perceptrons"))
    return _pool[2]


def run_tasks(func, tasks, n_threads):
    """``[func(*task) for task in tasks]``, on the calling thread and up to
    ``n_threads - 1`` pool threads, each taking the next task when it is
    done with one (so that a thread slowed down by other work on the machine
    holds up no other).  Returns the results in task order; re-raises the
    first error, after every thread has stopped."""
    n_threads = min(n_threads, len(tasks))
    if n_threads <= 1:
        return [func(*task) for task in tasks]
    results = [None] * len(tasks)
    # Taking the next item of one iterator is atomic under the GIL.
    queue = iter(enumerate(tasks))

    def drain():
        for index, task in queue:
            results[index] = func(*task)

    pool = thread_pool(n_threads - 1)
    futures = [pool.submit(drain) for _ in range(n_threads - 1)]
    error = None
    try:
        drain()
    except BaseException as caught:  # re-raised once the others stopped
        error = caught
    for future in futures:
        # A helper no pool thread has started yet is not needed any more
        # (and may never start while the pool's threads wait here, in a
        # nested call): cancel it rather than wait for it.
        if not future.cancel() and future.exception() is not None \
                and error is None:
            error = future.exception()
    if error is not None:
        raise error
    return results
