"""Tokens of the C++ subset the kernels are written in, and their preprocessor lines.

A preprocessor line becomes one ``pp`` token (its text after ``#``, continuation
lines joined); :mod:`.preprocess` decides what each means. Comments vanish.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import KernelSourceError
from .limits import MAX_TOKENS

__all__ = ["Token", "tokenize"]


@dataclass(frozen=True)
class Token:
    kind: str      # "id", "num", "str", "op", "pp", "eof"
    text: str
    file: str
    line: int

    def __repr__(self):
        return f"{self.text!r}@{self.line}"


_PUNCT = ("::", "->", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "...",
          "<<", "[[", "]]")
_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+) | (?P<nl>\n) | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|0[bB][01]+[uUlL]*|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlLuU]*)
  | (?P<id>[^\W\d]\w*)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<op>""" + "|".join(re.escape(p) for p in _PUNCT) + r"""|[{}()\[\];:,.<>=+\-*/%&|!~?^#])
""", re.VERBOSE | re.DOTALL)


def tokenize(text: str, file: str) -> list:
    """The tokens of ``text``; preprocessor lines as single ``pp`` tokens."""
    tokens, line, pos, at_line_start = [], 1, 0, True
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise KernelSourceError(file, line, f"character {text[pos]!r}", "not C++ the reader knows")
        kind, piece = m.lastgroup, m.group()
        if kind == "op" and piece == "#" and at_line_start:
            end, start_line = pos, line
            while True:     # a directive runs to an unescaped newline; comments inside it go
                nl = text.find("\n", end)
                nl = len(text) if nl < 0 else nl
                if text[end:nl].rstrip().endswith("\\"):
                    end, line = nl + 1, line + 1
                    continue
                break
            body = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text[pos + 1:nl].replace("\\\n", " "), flags=re.DOTALL)
            tokens.append(Token("pp", " ".join(body.split()), file, start_line))
            if len(tokens) > MAX_TOKENS:
                raise KernelSourceError(file, line, "the file", f"more than {MAX_TOKENS} tokens")
            pos = nl
            continue
        if kind in ("nl", "comment"):
            line += piece.count("\n")
            at_line_start = at_line_start or "\n" in piece
        elif kind != "ws":
            tokens.append(Token(kind, piece, file, line))
            at_line_start = False
            if len(tokens) > MAX_TOKENS:
                raise KernelSourceError(file, line, "the file", f"more than {MAX_TOKENS} tokens")
        pos = m.end()
    tokens.append(Token("eof", "", file, line))
    return tokens
