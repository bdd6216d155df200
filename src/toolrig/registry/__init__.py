"""Declarative tool registry: YAML definitions, discovery, hot reload, dependencies, cost and
intent mapping."""

from toolrig.registry.build import DeclaredTool
from toolrig.registry.chains import DependencyCycleError, DependencyError, MissingDependencyError
from toolrig.registry.cost import PlanCost
from toolrig.registry.default import default_registry, register_tool
from toolrig.registry.definition import ActionDefinition, ToolDefinition
from toolrig.registry.events import ChangeEvent, ChangeKind
from toolrig.registry.intents import IntentMap, IntentNotFoundError
from toolrig.registry.registry import Registry
from toolrig.registry.report import LoadError, LoadReport, RegistryLoadError
from toolrig.registry.watch import Watcher

__all__ = [
    "ActionDefinition",
    "ChangeEvent",
    "ChangeKind",
    "DeclaredTool",
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
    "default_registry",
    "register_tool",
]
