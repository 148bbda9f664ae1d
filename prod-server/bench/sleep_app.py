"""/sleep?ms=N for uvicorn, shaped like m0serve's --blocking-threads 2: a sync handler
(time.sleep) on a pool of SLEEP_APP_THREADS (default 2) threads per worker process, the event
loop free meanwhile. The payoff's uvicorn arm (Debian python3-uvicorn 0.17.6 has no anyio, so the
pool is a ThreadPoolExecutor through run_in_executor).

    /usr/bin/python3 -m uvicorn --app-dir prod-server/bench sleep_app:app --workers 2 --lifespan off
"""
import asyncio
import os
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs

THREADS = int(os.environ.get("SLEEP_APP_THREADS", "2"))
_pool = None  # made in the worker process on its first request, never in a parent


async def app(scope, receive, send):
    global _pool
    if scope["type"] != "http":
        return
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=THREADS)
    ms = int(parse_qs(scope["query_string"].decode()).get("ms", ["0"])[0])
    if ms > 0:
        await asyncio.get_running_loop().run_in_executor(_pool, time.sleep, ms / 1000)
    body = b"slept\n"
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
