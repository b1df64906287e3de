"""The long-document tool: `search_docs` returns whole sections of three bundled documents.

The documents (a 北京 guide in Chinese, a 广州 guide and a weather-station manual in English,
~50,000 characters together) live in reactlab/data. A query is split into latin words and CJK
bigrams, sections are scored by how often they contain them (a heading counts five times), and
the best sections are returned *in full* until the answer holds 10,000 characters: 10,000+
characters for an English query, 5,000+ for a Chinese one (about as many tokens). That is on
purpose: it is the tool of the context-bloat lesson, and `reactlab.guards.compact_observation`
is the fix.

Deliberately NOT here: snippets, embeddings, stemming, ranking beyond term counts, any document
the user adds. Introduced in notebook 07.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from reactlab.tools.bundled import MAX_INPUT_CHARS, data
from reactlab.tools.registry import tool

DOCUMENTS = ("doc_beijing_guide.md", "doc_guangzhou_guide.md", "doc_weather_station_manual.md")
# Whole sections, never snippets: the output is long on purpose. Sections are added best
# first until the answer holds RESULT_CHARS characters (or MAX_SECTIONS sections).
RESULT_CHARS = 10_000
MAX_SECTIONS = 12
_STOPWORDS = {"the", "and", "for", "how", "what", "of", "in", "to", "is", "a", "an", "do"}


@cache
def sections() -> list[tuple[str, str, str]]:
    """(document title, section heading, section text) for every "## " section."""
    out = []
    for name in DOCUMENTS:
        text = data(name)
        title = re.search(r"^# (.+)$", text, re.MULTILINE)
        doc_title = title.group(1).strip() if title else name
        for chunk in re.split(r"(?m)^(?=## )", text)[1:]:
            heading = chunk.splitlines()[0][3:].strip()
            out.append((doc_title, heading, chunk.strip()))
    return out


def _terms(query: str) -> list[str]:
    """Search terms: latin words and CJK bigrams. Example: "故宫 tickets" -> ["tickets", "故宫"]."""
    q = unicodedata.normalize("NFKC", query).casefold()
    words = [w for w in re.findall(r"[a-z0-9]{2,}", q) if w not in _STOPWORDS]
    for run in re.findall(r"[\u3400-\u9fff]+", q):
        words += [run] if len(run) <= 2 else [run[i:i + 2] for i in range(len(run) - 1)]
    return list(dict.fromkeys(words))


@tool(max_chars=MAX_INPUT_CHARS)
def search_docs(query: str) -> str:
    """Search the bundled guides (北京, 广州 travel) and a weather-station manual; returns whole sections.

    Args:
        query: keywords, e.g. 故宫 门票, dim sum or battery

    Returns the best-matching sections in full, deliberately long (often 10,000+ characters):
    this is the tool of the context-bloat lesson. Example: search_docs("早茶")
    """
    terms = _terms(str(query))
    if not terms:
        raise ValueError("query has no searchable words: pass keywords such as 故宫 or dim sum.")
    scored = []
    for order, (doc, heading, text) in enumerate(sections()):
        body, head = text.casefold(), heading.casefold()
        score = sum(body.count(t) + 5 * head.count(t) for t in terms)
        if score:
            scored.append((-score, order, doc, heading, text))
    if not scored:
        docs = "; ".join(dict.fromkeys(d for d, _, _ in sections()))
        return (f"No section matched {query!r}. The bundled documents are: {docs}. "
                "Try other keywords, e.g. 故宫, 早茶, Canton Tower, battery, calibration.")
    best, size = [], 0
    for item in sorted(scored)[:MAX_SECTIONS]:
        if size >= RESULT_CHARS:
            break
        best.append(item)
        size += len(item[-1])
    shown = "\n\n".join(f"=== {doc} › {heading} ===\n{text}" for _, _, doc, heading, text in best)
    return (f"search_docs: {len(scored)} sections matched {query!r}; the best {len(best)} "
            f"follow in full ({len(shown):,} characters, bundled sample documents).\n\n{shown}")
