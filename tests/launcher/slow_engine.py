#!/usr/bin/env python3
"""An engine that is still starting: listens on SOCKET at once, but for the
first DELAY seconds accepts connections and never answers; after that it
relays every connection to the real engine at TARGET (hijacked attach
streams included).

Usage: slow_engine.py SOCKET TARGET DELAY
"""
import os
import socket
import sys
import threading
import time


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def main():
    path, target, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    start = time.monotonic()
    silent = []  # held open, never answered
    while True:
        client, _ = server.accept()
        if time.monotonic() - start < delay:
            silent.append(client)
            continue
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(target)
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


if __name__ == "__main__":
    main()
