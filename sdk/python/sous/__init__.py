"""Sous Python SDK (spec 4.8): prepared repository context for custom scripts.

    from sous import api
    package = api.query("where is the config loaded", "/path/to/repo", client_id="my-script")
    print(package.injected_context)

Standard library only. See README.md and docs/proxy.md#python-sdk.
"""

from . import api
from .api import ContextItem, ContextPackage, SousError, SousUnavailableError, query

__all__ = ["api", "query", "ContextItem", "ContextPackage", "SousError", "SousUnavailableError"]
__version__ = "0.9.0"
