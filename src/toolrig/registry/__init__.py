"""The registry layer: the catalogue where tools live, and the registry that feeds it from YAML
definitions, folders (with hot reload), plugins and intents.

The catalogue and its change events load with the package; the YAML machinery (PyYAML,
watchdog) loads on first use of its names.
"""

import typing as _typing

from toolrig.core.model._lazy import lazy_names as _lazy_names
from toolrig.registry._catalog import Catalog
from toolrig.registry._events import ChangeEvent, ChangeKind

if _typing.TYPE_CHECKING:
    from toolrig.registry._chains import (
        DependencyCycleError,
        DependencyError,
        MissingDependencyError,
    )
    from toolrig.registry._cost import PlanCost
    from toolrig.registry._default import default_registry, register_tool
    from toolrig.registry._definition import ActionDefinition, ToolDefinition
    from toolrig.registry._intents import IntentMap, IntentNotFoundError
    from toolrig.registry._registry import Registry
    from toolrig.registry._report import LoadError, LoadReport, RegistryLoadError
    from toolrig.registry._sources import YamlSource
    from toolrig.registry._watch import Watcher

_LAZY = {
    "ActionDefinition": "toolrig.registry._definition",
    "DependencyCycleError": "toolrig.registry._chains",
    "DependencyError": "toolrig.registry._chains",
    "IntentMap": "toolrig.registry._intents",
    "IntentNotFoundError": "toolrig.registry._intents",
    "LoadError": "toolrig.registry._report",
    "LoadReport": "toolrig.registry._report",
    "MissingDependencyError": "toolrig.registry._chains",
    "PlanCost": "toolrig.registry._cost",
    "Registry": "toolrig.registry._registry",
    "RegistryLoadError": "toolrig.registry._report",
    "ToolDefinition": "toolrig.registry._definition",
    "Watcher": "toolrig.registry._watch",
    "YamlSource": "toolrig.registry._sources",
    "default_registry": "toolrig.registry._default",
    "register_tool": "toolrig.registry._default",
}


__getattr__ = _lazy_names(__name__, _LAZY)


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
