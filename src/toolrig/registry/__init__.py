"""The registry layer: the catalogue where tools live, and the registry that feeds it from YAML
definitions, folders (with hot reload), plugins and intents.

The catalogue and its change events load with the package; the YAML machinery (PyYAML,
watchdog) loads on first use of its names.
"""

from typing import TYPE_CHECKING, Any

from toolrig.registry.catalog import Catalog
from toolrig.registry.events import ChangeEvent, ChangeKind

if TYPE_CHECKING:
    from toolrig.registry.chains import (
        DependencyCycleError,
        DependencyError,
        MissingDependencyError,
    )
    from toolrig.registry.cost import PlanCost
    from toolrig.registry.default import default_registry, register_tool
    from toolrig.registry.definition import ActionDefinition, ToolDefinition
    from toolrig.registry.intents import IntentMap, IntentNotFoundError
    from toolrig.registry.registry import Registry
    from toolrig.registry.report import LoadError, LoadReport, RegistryLoadError
    from toolrig.registry.sources import YamlSource
    from toolrig.registry.watch import Watcher

_LAZY = {
    "ActionDefinition": "toolrig.registry.definition",
    "DependencyCycleError": "toolrig.registry.chains",
    "DependencyError": "toolrig.registry.chains",
    "IntentMap": "toolrig.registry.intents",
    "IntentNotFoundError": "toolrig.registry.intents",
    "LoadError": "toolrig.registry.report",
    "LoadReport": "toolrig.registry.report",
    "MissingDependencyError": "toolrig.registry.chains",
    "PlanCost": "toolrig.registry.cost",
    "Registry": "toolrig.registry.registry",
    "RegistryLoadError": "toolrig.registry.report",
    "ToolDefinition": "toolrig.registry.definition",
    "Watcher": "toolrig.registry.watch",
    "YamlSource": "toolrig.registry.sources",
    "default_registry": "toolrig.registry.default",
    "register_tool": "toolrig.registry.default",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolrig.registry' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ActionDefinition",
    "Catalog",
    "ChangeEvent",
    "ChangeKind",
    "DependencyCycleError",
    "DependencyError",
    "IntentMap",
    "IntentNotFoundError",
    "LoadError",
    "LoadReport",
    "MissingDependencyError",
    "PlanCost",
    "Registry",
    "RegistryLoadError",
    "ToolDefinition",
    "Watcher",
    "YamlSource",
    "default_registry",
    "register_tool",
]
