"""reactlab: learn how an LLM agent calls tools, from one HTTP request to native tool_calls.

`reactlab.connect()` is the entry point of every notebook. Everything else lives in one
module per concept; read them in the order the notebooks meet them:

    config, connection, doctor, cli      set-up, providers, the local server in the background (00)
    http                                 one raw request, SSE, curl (01)
    prompts/                             the texts the model reads from us (02)
    jsonish, action_parsing, parsing     reading a ReAct reply (03)
    tools/                               tools as data plus a function (04)
    runlog, completion, loop             records, one model call, the one agent loop (04)
    react_agent, report                  the text protocol on the loop; showing a run (04)
    streaming, fc_agent                  streamed deltas; the native protocol on the loop (05)
    server/                              what stands behind `tool_calls` (06)
    compaction, loop_detector, guards,   the pitfalls and their guards (07)
    folding
    memory, widgets                      multi-turn memory, the trace viewer (08)
"""

from reactlab.connection import Connection, connect

__version__ = "0.1.0"
__all__ = ["Connection", "__version__", "connect"]
