#!/usr/bin/python3
"""Open a page in headless Chromium and report what a reader's browser did.

Speaks the DevTools protocol over a WebSocket with the standard library
only.  Prints one JSON object: the console errors and uncaught exceptions,
every network request other than the page itself, the value of --eval (a
JavaScript expression run once the page has loaded), and whether
--screenshot wrote a PNG of the whole page.

usage: cdp.py PAGE [--eval EXPR] [--screenshot PNG] [--timeout S]
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = os.environ.get("FB_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
         "--window-size=1200,900", "--remote-debugging-port=0"]


class WebSocket:
    """A client WebSocket (RFC 6455): text frames out, masked; frames in."""

    def __init__(self, url, timeout):
        assert url.startswith("ws://")
        hostport, path = url[5:].split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("websocket handshake refused: %r" % head[:200])
        self.buf = b""

    def _exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise OSError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text, opcode=1):
        data = text.encode() if isinstance(text, str) else text
        head = bytes([0x80 | opcode])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def recv(self):
        """The next text message, whole (fragments joined)."""
        parts = []
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            mask = self._exact(4) if b1 & 0x80 else None
            data = self._exact(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            op = b0 & 0x0F
            if op == 9:
                self.send(data, opcode=10)
                continue
            if op == 8:
                raise OSError("websocket closed by the browser")
            if op in (0, 1, 2):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode()


class Page:
    def __init__(self, ws, timeout):
        self.ws = ws
        self.timeout = timeout
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.sock.settimeout(self.timeout)
        self.ws.send(json.dumps({"id": mid, "method": method,
                                 "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, deadline):
        while time.monotonic() < deadline:
            for e in self.events:
                if e["method"] == method:
                    return e
            self.ws.sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                msg = json.loads(self.ws.recv())
            except socket.timeout:
                break
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError("no %s before the deadline" % method)

    def drain(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.ws.sock.settimeout(max(0.05, end - time.monotonic()))
            try:
                msg = json.loads(self.ws.recv())
            except socket.timeout:
                return
            if "method" in msg:
                self.events.append(msg)


def start_browser(profile, timeout):
    # Chromium makes its singleton socket's directory
    # (org.chromium.Chromium.XXXXXX) in TMPDIR and leaves it there: in the
    # profile, it goes with the profile
    proc = subprocess.Popen([CHROMIUM] + FLAGS +
                            ["--user-data-dir=" + profile, "about:blank"],
                            stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env=dict(os.environ, TMPDIR=profile),
                            start_new_session=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("chromium exited with %d" % proc.returncode)
        try:
            with open(port_file) as f:
                port = int(f.readline())
            break
        except (OSError, ValueError):
            time.sleep(0.1)
    else:
        raise TimeoutError("chromium wrote no DevToolsActivePort")
    while True:
        with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port,
                                    timeout=timeout) as r:
            targets = json.load(r)
        pages = [t for t in targets if t.get("type") == "page"]
        if pages:
            return proc, pages[0]["webSocketDebuggerUrl"]
        if time.monotonic() > end:
            raise TimeoutError("chromium opened no page")
        time.sleep(0.1)


def stop_browser(proc):
    """End chromium and every process it started (its own group)."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        # the zygote and renderers may outlive the browser a moment
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
    proc.poll()


def describe(e):
    p = e["params"]
    m = e["method"]
    if m == "Runtime.consoleAPICalled":
        return "console.%s: %s" % (p["type"], " ".join(
            str(a.get("value", a.get("description", ""))) for a in p["args"]))
    if m == "Runtime.exceptionThrown":
        d = p["exceptionDetails"]
        return "exception: %s" % d.get("exception", {}).get(
            "description", d.get("text"))
    return "log %s: %s" % (p["entry"]["level"], p["entry"]["text"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--eval", default="null")
    ap.add_argument("--screenshot")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    url = "file://" + os.path.abspath(a.page)
    profile = tempfile.mkdtemp(prefix="fb-chromium.")
    proc = None
    try:
        proc, wsurl = start_browser(profile, a.timeout)
        page = Page(WebSocket(wsurl, a.timeout), a.timeout)
        for domain in ("Runtime", "Log", "Network", "Page"):
            page.call(domain + ".enable")
        page.call("Page.navigate", url=url)
        page.wait_event("Page.loadEventFired",
                        time.monotonic() + a.timeout)
        page.drain(1.0)  # late requests and errors still count
        value = page.call("Runtime.evaluate", expression=a.eval,
                          returnByValue=True)
        if "exceptionDetails" in value:
            raise RuntimeError("--eval failed: %s" %
                               value["exceptionDetails"].get("text"))
        shot = False
        if a.screenshot:
            size = page.call("Page.getLayoutMetrics")["cssContentSize"]
            png = page.call("Page.captureScreenshot", format="png",
                            captureBeyondViewport=True,
                            clip={"x": 0, "y": 0, "width": size["width"],
                                  "height": size["height"], "scale": 1})
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(png["data"]))
            shot = True
        errors = [describe(e) for e in page.events
                  if e["method"] in ("Runtime.exceptionThrown",)
                  or (e["method"] == "Runtime.consoleAPICalled"
                      and e["params"]["type"] in ("error", "assert"))
                  or (e["method"] == "Log.entryAdded"
                      and e["params"]["entry"]["level"] == "error")]
        requests = [e["params"]["request"]["url"] for e in page.events
                    if e["method"] == "Network.requestWillBeSent"
                    and e["params"]["request"]["url"] != url]
        json.dump({"console_errors": errors, "requests": requests,
                   "value": value["result"].get("value"),
                   "screenshot": shot}, sys.stdout)
        sys.stdout.write("\n")
    finally:
        if proc:
            stop_browser(proc)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
