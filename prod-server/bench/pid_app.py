"""A bare ASGI app answering its worker's pid: the spread probe's /pid for uvicorn (--by-pid).

    /usr/bin/python3 -m uvicorn --app-dir prod-server/bench pid_app:app --workers 2 --lifespan off
"""
import os


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = f"{os.getpid()}\n".encode()  # per request: the worker process, whatever the start method
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
