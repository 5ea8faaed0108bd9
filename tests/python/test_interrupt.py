"""Ctrl-C while the loader waits raises KeyboardInterrupt promptly; the epoch can go on."""

import os
import signal
import threading
import time

import numpy as np

from conftest import CLASSES, PER_CLASS, feedrate, small


def test_sigint_while_waiting_interrupts_and_the_epoch_continues(image_folder):
    # Every read takes a second: the first batch arrives a second after iter().
    loader = feedrate.Loader(image_folder, **small(shuffle=False, return_indices=True,
                                                   throttle="1000,100000,1000000"))
    iterator = iter(loader)
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        next(iterator)
        raise AssertionError("expected KeyboardInterrupt")
    except KeyboardInterrupt:
        interrupted_after = time.monotonic() - started
    finally:
        timer.join()
    # Raised while the first batch was still on its way, not after it arrived.
    assert interrupted_after < 0.8, interrupted_after
    indices = np.concatenate([batch[2] for batch in iterator])
    assert indices.tolist() == list(range(len(CLASSES) * PER_CLASS))
