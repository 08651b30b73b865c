"""The `opkit` logger: compiles over a second and waits for another process's compile, at INFO.

Nothing is shown by default (Python's logging shows warnings and above);
`OPKIT_FLAGS=verbose=true` (config.verbose) sends these lines to stderr, and an
application can attach its own handler to `logging.getLogger("opkit")`.
"""

from __future__ import annotations

from opkit.config import config

_handler_added = False


def log_info(message: str, *args) -> None:
    """Log `message % args` at INFO on the `opkit` logger; with config.verbose, on stderr too."""
    import logging  # here: the store imports this module, and logging imports threading (not on the warm path)

    global _handler_added
    logger = logging.getLogger("opkit")
    if config.verbose and not _handler_added:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("opkit: %(message)s"))
        logger.addHandler(handler)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
        _handler_added = True
    logger.info(message, *args)
