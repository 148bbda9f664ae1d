"""Issue 48's Python peer of examples-embed: a plain ASGI app for uvicorn serving the same POST /embed
(JSON in and out, the batch form too) and computing the same vector as MiniLm.java (langchain4j's
OnnxBertBiEncoder, MEAN pooling), as embed-node/server.js does: the model file and tokenizer.json
unzipped from langchain4j's jar (embed.sh does it), Hugging Face's tokenizers (the Rust library DJL
wraps for langchain4j) and ONNX Runtime's Python package in process. Each uvicorn worker process
imports this module, so each loads the model once; an inference runs on the worker's event loop
thread, one at a time per worker, as in the Node peer.

    EMBED_MODEL_DIR=DIR [EMBED_ORT_THREADS=N] uvicorn --app-dir embed-uvicorn app:app --workers 2

uvicorn owns the command line, so the app's two settings come from the environment, as a uvicorn
app's usually do. EMBED_ORT_THREADS as EmbedMain's --ort-threads: ONNX Runtime's intra-op threads
per call, one inter-op thread, no spinning; 0 (the default) leaves the runtime's own defaults, as a
user first writes it.
"""
import json
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DIMENSION = 384
MAX_TEXTS = 256  # EmbedJson.MAX_TEXTS
MAX_BODY = 1 << 20  # a bigger body is a 413, not a heap
MAX_SEQUENCE_LENGTH = 510  # OnnxBertBiEncoder: 512 less [CLS] and [SEP]


class BadRequest(Exception):
    """The body is not a request we can answer: the message says why, for the 400."""


def load(model_dir, ort_threads):
    tokenizer = Tokenizer.from_file(os.path.join(model_dir, "all-minilm-l6-v2-tokenizer.json"))
    # DJL's newInstance(..., padding=false) as langchain4j calls it: no padding; the file's truncation kept.
    tokenizer.no_padding()
    options = ort.SessionOptions()
    if ort_threads > 0:  # as MiniLm.threads(n)
        options.intra_op_num_threads = ort_threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(os.path.join(model_dir, "all-minilm-l6-v2.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}
    return tokenizer, session, "token_type_ids" in inputs, session.get_outputs()[0].name


def parse(body):
    """EmbedJson.parse: exactly one of "text" (a string) or "texts" (1 to 256 strings), none blank."""
    try:
        root = json.loads(body)
    except ValueError as e:  # a UnicodeDecodeError too
        raise BadRequest(f"not JSON: {e}") from None
    if not isinstance(root, dict):
        raise BadRequest('expected a JSON object with "text" or "texts"')
    if ("text" in root) == ("texts" in root):
        raise BadRequest('expected exactly one of "text" or "texts"')

    def blank(t):
        return not isinstance(t, str) or not t.strip()

    if "text" in root:
        if blank(root["text"]):
            raise BadRequest('"text" must be a string, not blank')
        return [root["text"]], False
    texts = root["texts"]
    if not isinstance(texts, list) or not 0 < len(texts) <= MAX_TEXTS:
        raise BadRequest(f'"texts" must be an array of 1 to {MAX_TEXTS} strings')
    if any(blank(t) for t in texts):
        raise BadRequest('"texts" must hold strings only, none blank')
    return texts, True


class Model:
    def __init__(self, model_dir, ort_threads):
        self.tokenizer, self.session, self.type_ids, self.output = load(model_dir, ort_threads)
        self.description = (f"{ort_threads} ONNX Runtime thread(s) per call" if ort_threads > 0
                            else "ONNX Runtime's default threads")

    def embed(self, text):
        """OnnxBertBiEncoder.embed, as embed-node's embed(): the word pieces cut into runs of at
        most 510 (never inside a word), each framed by [CLS] and [SEP] and mean-pooled over every
        position (no padding), the runs averaged weighted by their length, scaled to length 1."""
        enc = self.tokenizer.encode(text)
        ids, tokens = enc.ids, enc.tokens
        cls, sep = ids[0], ids[-1]
        total = np.zeros(DIMENSION)
        weight = 0
        start = 1
        while start < len(ids) - 1:
            end = start + MAX_SEQUENCE_LENGTH
            if end >= len(ids) - 1:
                end = len(ids) - 1
            else:
                while tokens[end].startswith("##"):
                    end -= 1
            total += self.mean_pool([cls, *ids[start:end], sep]) * (end - start)
            weight += end - start
            start = end
        total /= weight
        return (total / np.linalg.norm(total)).astype(np.float32)

    def mean_pool(self, ids):
        row = np.array([ids], dtype=np.int64)
        feeds = {"input_ids": row, "attention_mask": np.ones_like(row)}
        if self.type_ids:
            feeds["token_type_ids"] = np.zeros_like(row)
        hidden = self.session.run([self.output], feeds)[0]  # last_hidden_state [1, n, 384]
        return hidden[0].astype(np.float64).mean(axis=0)


def floats(v):
    """str() of a float32 is the shortest decimal that reads back as the same float, as Java's Float.toString."""
    return "[" + ",".join(map(str, v)) + "]"


async def send_response(send, status, content_type, body, headers=()):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


def error(message):
    return json.dumps({"error": message}).encode()


class EmbedApp:
    """The ASGI app: the model is loaded when the worker imports this module."""

    def __init__(self, model):
        self.model = model

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.lifespan(receive, send)
        if scope["type"] != "http":
            return None
        if scope["path"] != "/embed":
            return await send_response(send, 404, b"text/plain", b"not found: POST /embed\n")
        if scope["method"] != "POST":
            return await send_response(send, 405, b"text/plain", b"POST /embed\n", [(b"allow", b"POST")])
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size <= MAX_BODY:
                chunks.append(chunk)
            more = message.get("more_body", False)
        if size > MAX_BODY:
            return await send_response(send, 413, b"application/json", error(f"body over {MAX_BODY} bytes"))
        try:
            texts, batch = parse(b"".join(chunks))
        except BadRequest as e:
            return await send_response(send, 400, b"application/json", error(str(e)))
        try:
            vectors = [self.model.embed(t) for t in texts]  # one text after another, as MiniLm.threads(n)
        except Exception as e:  # noqa: BLE001 - one request's failure is its 500 and a log line
            print(f"embed-uvicorn worker {os.getpid()}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            return await send_response(send, 500, b"application/json", error("embedding failed"))
        if batch:
            body = '{"embeddings":[' + ",".join(floats(v) for v in vectors) + "]}"
        else:
            body = '{"embedding":' + floats(vectors[0]) + "}"
        return await send_response(send, 200, b"application/json", body.encode())

    async def lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # embed.sh waits for this line from every worker: the model is loaded, the worker serves
                print(f"embed-uvicorn worker {os.getpid()} ready: {self.model.description}, "
                      f"onnxruntime {ort.__version__}", flush=True)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def _model_from_env():
    model_dir = os.environ.get("EMBED_MODEL_DIR")
    if not model_dir:
        sys.exit("embed-uvicorn: EMBED_MODEL_DIR must name the directory with all-minilm-l6-v2.onnx "
                 "and all-minilm-l6-v2-tokenizer.json")
    threads = os.environ.get("EMBED_ORT_THREADS", "0")
    if not threads.isdigit():
        sys.exit(f"embed-uvicorn: EMBED_ORT_THREADS wants a count, not '{threads}'")
    return Model(model_dir, int(threads))


app = EmbedApp(_model_from_env())
