#!/usr/bin/env python3
"""A tiny language server for the tests, speaking LSP over stdio.

Language "fake" (*.fake files): `func NAME` defines NAME; every line holding
ERROR gets an error diagnostic (source fakels). Answers definition,
references, hover, document and workspace symbols. With FAKELS_FLOOD=N it
publishes N extra warnings per document; with FAKELS_DELAY=S it waits S
seconds before each publish; FAKELS_SILENT=1 never publishes.
"""
import json
import os
import re
import sys
import time
import urllib.parse

ROOT = os.getcwd()
docs = {}  # uri -> text
FLOOD = int(os.environ.get("FAKELS_FLOOD", "0"))
DELAY = float(os.environ.get("FAKELS_DELAY", "0"))
SILENT = os.environ.get("FAKELS_SILENT") == "1"


def send(msg):
    msg["jsonrpc"] = "2.0"
    data = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
    sys.stdout.buffer.flush()


def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(sys.stdin.buffer.read(length))


def path_of(uri):
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path)


def uri_of(path):
    return "file://" + urllib.parse.quote(path)


def files():
    """Every .fake file: open documents first, then the disk's."""
    out = dict(docs)
    for dirpath, _, names in os.walk(ROOT):
        if "/.git" in dirpath:
            continue
        for n in names:
            if n.endswith(".fake"):
                u = uri_of(os.path.join(dirpath, n))
                if u not in out:
                    try:
                        out[u] = open(os.path.join(dirpath, n)).read()
                    except OSError:
                        pass
    return out


def rng(line, col, n):
    return {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + n}}


def word_at(text, line, col):
    lines = text.split("\n")
    if line >= len(lines):
        return ""
    for m in re.finditer(r"\w+", lines[line]):
        if m.start() <= col <= m.end():
            return m.group(0)
    return ""


def definitions(name):
    for u, text in files().items():
        for i, l in enumerate(text.split("\n")):
            m = re.match(r"\s*func (\w+)", l)
            if m and m.group(1) == name:
                yield u, i, m.start(1)


def publish(uri):
    if SILENT:
        return
    if DELAY:
        time.sleep(DELAY)
    diags = []
    for i, l in enumerate(docs.get(uri, "").split("\n")):
        c = l.find("ERROR")
        if c >= 0:
            diags.append({"range": rng(i, c, 5), "severity": 1, "source": "fakels", "message": "ERROR is not allowed here"})
    for k in range(FLOOD):
        diags.append({"range": rng(0, 0, 1), "severity": 2, "source": "fakels", "message": "flood %d" % k})
    send({"method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": diags}})


def handle(msg):
    method, params, mid = msg.get("method"), msg.get("params") or {}, msg.get("id")
    result = None
    if method == "initialize":
        result = {"capabilities": {"textDocumentSync": 1, "definitionProvider": True, "referencesProvider": True,
                                   "hoverProvider": True, "documentSymbolProvider": True, "workspaceSymbolProvider": True}}
    elif method == "shutdown":
        result = None
    elif method == "exit":
        sys.exit(0)
    elif method == "textDocument/didOpen":
        td = params["textDocument"]
        docs[td["uri"]] = td["text"]
        publish(td["uri"])
        return
    elif method == "textDocument/didChange":
        docs[params["textDocument"]["uri"]] = params["contentChanges"][-1]["text"]
        publish(params["textDocument"]["uri"])
        return
    elif method == "textDocument/didClose":
        docs.pop(params["textDocument"]["uri"], None)
        return
    elif method in ("textDocument/definition", "textDocument/references", "textDocument/hover"):
        uri, pos = params["textDocument"]["uri"], params["position"]
        name = word_at(files().get(uri, ""), pos["line"], pos["character"])
        if method == "textDocument/definition":
            result = [{"uri": u, "range": rng(i, c, len(name))} for u, i, c in definitions(name)]
        elif method == "textDocument/references":
            result = []
            for u, text in files().items():
                for i, l in enumerate(text.split("\n")):
                    for m in re.finditer(r"\b%s\b" % re.escape(name), l) if name else []:
                        result.append({"uri": u, "range": rng(i, m.start(), len(name))})
        else:
            result = {"contents": {"kind": "markdown", "value": "```fake\nfunc %s()\n```" % name}} if name else None
    elif method == "textDocument/documentSymbol":
        uri = params["textDocument"]["uri"]
        result = []
        for i, l in enumerate(files().get(uri, "").split("\n")):
            m = re.match(r"\s*func (\w+)", l)
            if m:
                r = rng(i, m.start(1), len(m.group(1)))
                result.append({"name": m.group(1), "kind": 12, "range": r, "selectionRange": r})
    elif method == "workspace/symbol":
        q = params.get("query", "")
        result = []
        for u, text in files().items():
            for i, l in enumerate(text.split("\n")):
                m = re.match(r"\s*func (\w+)", l)
                if m and q in m.group(1):
                    result.append({"name": m.group(1), "kind": 12, "location": {"uri": u, "range": rng(i, m.start(1), len(m.group(1)))}})
    elif mid is None:
        return
    if mid is not None:
        send({"id": mid, "result": result})


while True:
    m = read()
    if m is None:
        break
    handle(m)
