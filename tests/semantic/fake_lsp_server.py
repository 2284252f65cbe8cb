"""A small, deliberately misbehaving language server for the fault tests (not a test module).

Usage: ``fake_lsp_server.py MODE LOG [EXTRA]``. It answers ``initialize`` with a few capabilities,
records every method it receives in LOG (one per line), and misbehaves on ``textDocument/hover``
according to MODE. Tests copy it to a temporary file with a shebang naming the test interpreter.
"""

import json
import os
import signal
import subprocess
import sys
import threading

MODE = sys.argv[1]
LOG = sys.argv[2]
EXTRA = sys.argv[3] if len(sys.argv) > 3 else ""
ROOT = {"uri": ""}
STATE = {"references": 0}


def log(text):
    with open(LOG, "a", encoding="utf-8") as handle:
        handle.write(text + "\n")


def read_message():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            if MODE == "immortal":  # outlive a closed stdin and SIGTERM: only SIGKILL ends us
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                threading.Event().wait()
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send_raw(body):
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def send(message):
    send_raw(json.dumps(message).encode("utf-8"))


def reply(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def capabilities():
    caps = {
        "textDocumentSync": 1,
        "definitionProvider": True,
        "documentSymbolProvider": True,
        "referencesProvider": True,
    }
    if MODE != "no-hover":
        caps["hoverProvider"] = True
    if MODE == "encoding-utf32":
        caps["positionEncoding"] = "utf-32"
    return caps


def rng(line, start, end):
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def hover(request):
    if MODE == "crash":
        os._exit(3)
    if MODE == "hang":
        return  # never answer; the client must time out and cancel
    if MODE == "invalid-json":
        send_raw(b"{this is not json")
        return
    if MODE == "oversize":
        sys.stdout.buffer.write(b"Content-Length: 999999999999\r\n\r\n")
        sys.stdout.buffer.flush()
        sys.stdin.buffer.read()  # stay alive until the client gives up on us
        return
    if MODE == "secret-hover":
        text = (
            "Returns the key. token ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD and AKIAABCDEFGHIJKLMNOP\n"
            "See [the docs](https://evil.example/steal?x=1) or https://evil.example/raw\n"
            "\x1b[31mred\x1b[0m bell\x07 password=hunter2hunter2 \u202eevil"
        )
        reply(request, {"contents": {"kind": "markdown", "value": text}})
        return
    if MODE == "non-utf8":
        body = (
            b'{"jsonrpc":"2.0","id":%d,"result":{"contents":{"kind":"plaintext","value":"caf\xe9 \xff ok"}}}'
        )
        send_raw(body % request["id"])
        return
    if MODE == "env":
        reply(request, {"contents": {"kind": "plaintext", "value": json.dumps(dict(os.environ))}})
        return
    if MODE == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        reply(
            request,
            {
                "contents": {
                    "kind": "plaintext",
                    "value": json.dumps({"pid": os.getpid(), "child": child.pid}),
                }
            },
        )
        return
    reply(request, {"contents": {"kind": "plaintext", "value": f"hover from {MODE}"}})


def definition(request):
    here = request["params"]["textDocument"]["uri"]
    locations = [{"uri": here, "range": rng(0, 0, 3)}]
    if MODE == "outside-uri":
        locations += [
            {"uri": "file:///etc/passwd", "range": rng(0, 0, 4)},
            {"uri": "https://evil.example/x.py", "range": rng(0, 0, 1)},
            {"uri": "file://otherhost/x.py", "range": rng(0, 0, 1)},
            {"uri": ROOT["uri"] + "/escape/passwd", "range": rng(0, 0, 1)},
            {"uri": ROOT["uri"] + "/../outside.py", "range": rng(0, 0, 1)},
            {"uri": here, "range": rng(999, 0, 1)},
        ]
    reply(request, locations)


def references(request):
    """``late-index``: empty for the first EXTRA requests (an index still being built), then one
    location; ``empty-references``: always empty."""
    STATE["references"] += 1
    if MODE == "empty-references" or STATE["references"] <= int(EXTRA or 0):
        reply(request, [])
        return
    reply(request, [{"uri": request["params"]["textDocument"]["uri"], "range": rng(0, 4, 9)}])


def main():
    log(f"start {os.getpid()}")
    while True:
        message = read_message()
        method = message.get("method")
        if method:
            log(method if method != "$/cancelRequest" else f"$/cancelRequest {message['params']['id']}")
        if "id" not in message:
            if method == "exit":
                sys.exit(0)
            if method == "textDocument/didOpen" and MODE == "publish":
                document = message["params"]["textDocument"]
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "textDocument/publishDiagnostics",
                        "params": {
                            "uri": document["uri"],
                            "version": document["version"],
                            "diagnostics": [
                                {
                                    "range": rng(0, 0, 3),
                                    "severity": 1,
                                    "message": "bad thing \x1b[1m here",
                                    "code": "E1",
                                }
                            ],
                        },
                    }
                )
            continue
        if method == "initialize":
            ROOT["uri"] = message["params"]["rootUri"]
            reply(message, {"capabilities": capabilities(), "serverInfo": {"name": "fake", "version": MODE}})
        elif method == "shutdown":
            reply(message, None)
        elif method == "textDocument/hover":
            hover(message)
        elif method == "textDocument/definition":
            definition(message)
        elif method == "textDocument/references" and MODE == "crash-references":
            os._exit(3)  # dies in the middle of a request the index could answer
        elif method == "textDocument/references" and MODE in ("late-index", "empty-references"):
            references(message)
        elif method == "textDocument/documentSymbol":
            uri = message["params"]["textDocument"]["uri"]
            count = int(EXTRA or 5)
            reply(
                message,
                [
                    {"name": f"sym{i}", "kind": 12, "location": {"uri": uri, "range": rng(0, 0, 1)}}
                    for i in range(count)
                ],
            )
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})


main()
