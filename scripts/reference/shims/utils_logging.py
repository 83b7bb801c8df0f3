"""posenc shim for transformers.utils.logging: the standard library logger, quiet by default."""

import functools
import logging as _logging

_root = _logging.getLogger("transformers")
_root.setLevel(_logging.ERROR)


def get_logger(name=None):
    logger = _logging.getLogger(name or "transformers")
    if not hasattr(logger, "warning_once"):
        logger.warning_once = functools.lru_cache(None)(logger.warning)
        logger.info_once = functools.lru_cache(None)(logger.info)
    return logger


def set_verbosity_error():
    _root.setLevel(_logging.ERROR)


def set_verbosity_warning():
    _root.setLevel(_logging.WARNING)


def warning_advice(*args, **kwargs):
    pass
