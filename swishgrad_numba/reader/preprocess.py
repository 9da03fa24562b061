"""The preprocessor lines of a kernel source: what the reader keeps, and what it refuses.

Kept: include guards; ``#ifdef __CCE_AICORE__`` (the reader reads the AI core's
code, so that guard is true and its ``#else`` is dropped); object-like
``#define NAME tokens``, substituted into later code; ``#include "..."`` of
local headers (listed for :mod:`.source`). Ignored: ``#pragma``,
``#include <...>``, function-like ``#define`` (a later use is an unknown call).
Refused: any other conditional around code (a preprocessor-selected body:
the program would depend on build flags the reader cannot know).
"""
from __future__ import annotations

import re

from .errors import KernelSourceError
from .lexer import Token, tokenize

__all__ = ["Preprocessed", "preprocess", "DEVICE_GUARD"]

#: The macro the AI core's compiler defines; a ``#ifdef`` on it keeps its body.
DEVICE_GUARD = "__CCE_AICORE__"
_DEVICE_IF = re.compile(r"^(ifdef\s+__CCE_AICORE__|if\s+defined\s*\(?\s*__CCE_AICORE__\s*\)?)$")


class Preprocessed:
    """A file's code tokens after its directives (``tokens``), the local headers it
    includes (``includes``) and the object-like macros it defines (``macros``)."""

    def __init__(self, tokens, includes, macros):
        self.tokens, self.includes, self.macros = tokens, includes, macros


def preprocess(text: str, file: str, macros: dict | None = None) -> Preprocessed:
    """Preprocess ``text`` with the ``macros`` of the files read before it (updated in place)."""
    macros = {} if macros is None else macros
    raw = tokenize(text, file)
    out, includes, i = [], [], 0
    stack = []   # open conditionals: "guard" / "device" / "device-else"
    while i < len(raw):
        tok = raw[i]
        if tok.kind != "pp":
            if not (stack and stack[-1] == "device-else"):
                out.extend(macros.get(tok.text, (tok,)) if tok.kind == "id" else (tok,))
            i += 1
            continue
        word, _, rest = tok.text.partition(" ")
        if word in ("ifndef", "ifdef", "if"):
            nxt = raw[i + 1] if i + 1 < len(raw) else None
            if word == "ifndef" and nxt is not None and nxt.kind == "pp" and nxt.text.split()[:2] == ["define", rest]:
                stack.append("guard")
            elif _DEVICE_IF.match(tok.text):
                stack.append("device")
            else:
                _refuse_selected(raw, i, file)
                i = _matching_endif(raw, i, file)
                continue
        elif word in ("else", "elif"):
            if not stack or stack[-1] != "device":
                raise KernelSourceError(file, tok.line, f"#{word}", "a preprocessor-selected body")
            if word == "elif":
                raise KernelSourceError(file, tok.line, "#elif", "a preprocessor-selected body")
            stack[-1] = "device-else"
        elif word == "endif":
            if not stack:
                raise KernelSourceError(file, tok.line, "#endif", "without its #if")
            stack.pop()
        elif word == "include":
            m = re.match(r'"([^"]+)"', rest)
            if m:
                includes.append((m.group(1), tok.line))
        elif word == "define" and not (stack and stack[-1] == "device-else"):
            m = re.match(r"(\w+)(\(?)\s*(.*)$", rest)
            if m and not m.group(2) and m.group(3):
                body = tokenize(m.group(3), file)[:-1]
                macros[m.group(1)] = tuple(Token(t.kind, t.text, file, tok.line) for t in body)
        i += 1
    if stack:
        raise KernelSourceError(file, raw[-1].line, "#if", "not closed by #endif")
    return Preprocessed(out, includes, macros)


def _matching_endif(raw, i, file) -> int:
    depth = 0
    for j in range(i, len(raw)):
        if raw[j].kind == "pp":
            word = raw[j].text.split(" ", 1)[0]
            depth += word in ("if", "ifdef", "ifndef")
            depth -= word == "endif"
            if depth == 0:
                return j + 1
    raise KernelSourceError(file, raw[i].line, f"#{raw[i].text}", "not closed by #endif")


def _refuse_selected(raw, i, file):
    """A conditional around code is refused; one around directives only is skipped whole."""
    end = _matching_endif(raw, i, file)
    if any(t.kind not in ("pp", "eof") for t in raw[i:end]):
        raise KernelSourceError(file, raw[i].line, f"#{raw[i].text}",
                                "a preprocessor-selected body (only include guards and "
                                f"#ifdef {DEVICE_GUARD} are read)")
