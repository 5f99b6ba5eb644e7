#!/usr/bin/env python3
"""Records raw streaming Chat Completions responses from a local server
(llama-server) as test fixtures: each model call becomes NNN-<label>.sse (the
response body exactly as the server sent it, transfer decoding aside) and
NNN-<label>.request.json (the request body it answered, byte for byte).

Two ways to use it:

  proxy   Sits between BearAgent and the server and records every
          POST /v1/chat/completions that passes (so the requests are exactly
          what BearAgent sends, tools and all):
            record-local-model-streams.py proxy --upstream http://127.0.0.1:8080 \
                --listen 18500 --out DIR --label 0.5b
            bearagent run --provider openai-chat --base-url http://127.0.0.1:18500 ...

  send    Sends request bodies saved earlier (*.request.json) to a server and
          records its answers (e.g. the same requests to another model):
            record-local-model-streams.py send --upstream http://127.0.0.1:8081 \
                --out DIR --label 1.5b FILE.request.json...
          (the file's name, less its number, names the recording).

Only the standard library is used. Names go on from the highest number in DIR.
"""
import argparse
import http.client
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse

LOCK = threading.Lock()


def next_number(out):
    nums = [int(m.group(1)) for f in os.listdir(out) if (m := re.match(r"(\d{3})-", f))]
    return max(nums, default=0) + 1


def describe(body):
    """A short description of a request: tool mode and turn."""
    try:
        req = json.loads(body)
    except ValueError:
        return "request"
    mode = "native" if req.get("tools") else "jsontext"
    turn = sum(1 for m in req.get("messages", []) if m.get("role") == "assistant") + 1
    return f"{mode}-turn{turn}"


def forward(upstream, path, body, headers):
    """POSTs body upstream; yields (status, headers) then the raw body chunks."""
    u = urllib.parse.urlsplit(upstream)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=3600)
    conn.request("POST", path, body=body, headers=headers)
    resp = conn.getresponse()
    yield resp.status, resp.getheaders()
    while True:
        chunk = resp.read1(65536)
        if not chunk:
            break
        yield chunk
    conn.close()


def save(out, label, body, raw, status, desc=None):
    with LOCK:
        n = next_number(out)
        name = f"{n:03d}-{label}-{desc or describe(body)}"
        with open(os.path.join(out, name + ".request.json"), "wb") as f:
            f.write(body)
        with open(os.path.join(out, name + ".sse"), "wb") as f:
            f.write(raw)
    print(f"recorded {name} (HTTP {status}, {len(raw)} bytes)", file=sys.stderr, flush=True)


def proxy(args):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # /health, /v1/models: passed through, not recorded
            u = urllib.parse.urlsplit(args.upstream)
            conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=60)
            conn.request("GET", self.path)
            r = conn.getresponse()
            data = r.read()
            self.send_response(r.status)
            self.send_header("Content-Type", r.getheader("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {"Content-Type": "application/json"}
            it = forward(args.upstream, self.path, body, headers)
            status, up_headers = next(it)
            self.send_response(status)
            ctype = dict((k.lower(), v) for k, v in up_headers).get("content-type", "text/event-stream")
            self.send_header("Content-Type", ctype)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            raw = bytearray()
            for chunk in it:
                raw += chunk
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            if self.path.endswith("/chat/completions"):
                save(args.out, args.label, body, bytes(raw), status)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", args.listen), Handler)
    print(f"proxy on 127.0.0.1:{args.listen} -> {args.upstream}, recording into {args.out}", file=sys.stderr)
    srv.serve_forever()


def send(args):
    for path in args.requests:
        with open(path, "rb") as f:
            body = f.read()
        req = json.loads(body)
        if args.model:
            req["model"] = args.model
            body = json.dumps(req).encode()
        it = forward(args.upstream, "/v1/chat/completions", body, {"Content-Type": "application/json"})
        status, _ = next(it)
        raw = b"".join(it)
        # The description: the saved file's, without its number and label.
        stem = os.path.basename(path).removesuffix(".request.json")
        stem = re.sub(r"^\d{3}-", "", stem)
        if stem.startswith(args.label + "-"):
            stem = stem[len(args.label) + 1:]
        save(args.out, args.label, body, raw, status, stem)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("proxy", "send"):
        s = sub.add_parser(name)
        s.add_argument("--upstream", required=True)
        s.add_argument("--out", required=True)
        s.add_argument("--label", required=True, help="goes into the file names, e.g. the model")
        if name == "proxy":
            s.add_argument("--listen", type=int, required=True)
        else:
            s.add_argument("--model", help="replace the request's model name")
            s.add_argument("requests", nargs="+")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    (proxy if args.cmd == "proxy" else send)(args)


if __name__ == "__main__":
    main()
