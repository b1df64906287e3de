"""reactlab: learn how an LLM agent calls tools, from one HTTP request to native tool_calls.

`reactlab.connect()` is the entry point of every notebook. Everything else lives in one
module per concept: config, http, prompts, parsing, tools (a package), react_agent, fc_agent,
streaming, guards, runlog, widgets, memory, server.
"""

from reactlab.connection import Connection, connect

__version__ = "0.1.0"
__all__ = ["Connection", "__version__", "connect"]
