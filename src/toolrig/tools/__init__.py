"""Built-in tools for local work: files, documents, downloads, shell, search, replace, todo.

Each tool works inside one root folder (its :class:`Sandbox`) given when it is created; paths
leaving it are refused with a ``permission_denied`` result. ``docs/tools.md`` lists what each
tool may touch and how to widen or narrow it.
"""

from toolrig.tools.completion import attempt_completion
from toolrig.tools.documents import DocumentTool
from toolrig.tools.download import DownloadTool
from toolrig.tools.files import FileTool
from toolrig.tools.replace import SearchReplaceTool
from toolrig.tools.sandbox import Sandbox
from toolrig.tools.search import SearchTool
from toolrig.tools.shell import ShellTool
from toolrig.tools.todo import TodoTool

__all__ = [
    "DocumentTool",
    "DownloadTool",
    "FileTool",
    "Sandbox",
    "SearchReplaceTool",
    "SearchTool",
    "ShellTool",
    "TodoTool",
    "attempt_completion",
]
