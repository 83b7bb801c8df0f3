"""Import the materialised tree and give access to its config classes and cut rotary modules."""

import importlib
import logging
import sys


class Runtime:
    def __init__(self, root):
        sys.path.insert(0, root)
        import torch_compat

        torch_compat.install()
        from transformers._posenc_runtime import STUBBED, StubFinder

        sys.meta_path.append(StubFinder(["transformers."]))
        self.stubbed = STUBBED
        self.configuration_utils = importlib.import_module("transformers.configuration_utils")
        self.rope_utils = importlib.import_module("transformers.modeling_rope_utils")
        self.PreTrainedConfig = self.configuration_utils.PreTrainedConfig
        self.warnings = _Collector()
        logging.getLogger("transformers").addHandler(self.warnings)
        logging.getLogger("transformers").setLevel(logging.WARNING)
        logging.getLogger("transformers").propagate = False

    def module(self, name):
        return importlib.import_module(name)


class _Collector(logging.Handler):
    """Keeps the warnings transformers logs, so a fixture can say what the reference warned about."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())

    def take(self):
        out, self.records = self.records, []
        return out
