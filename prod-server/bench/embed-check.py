"""embed.sh --check: each peer's vectors for the same texts against the Java example's on m0serve
(EmbedMain), one text at a time and as one batch: cosine >= 0.9999 and length 1 within 1e-4 each,
exit 1 otherwise.
    python3 embed-check.py JAVA_PORT NAME=PORT...
"""
import json
import math
import sys
import urllib.request

SENTENCES = [
    "A team serves a sentence embedding model behind a prefork server, one request at a time.",
    "The quick brown fox jumps over the lazy dog.",
    "Tokenization splits unfamiliar words like hyperparameterisation into word pieces!",
]
LONG = " ".join(["Each worker loads the model once and answers requests until it is told to stop."] * 12)
TEXTS = SENTENCES + [LONG]


def post(port, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/embed", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def cos(a, b):
    assert len(a) == len(b) == 384, (len(a), len(b))
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def check(java, name, port):
    ok = True
    jb = post(java, {"texts": TEXTS})["embeddings"]
    pb = post(port, {"texts": TEXTS})["embeddings"]
    for i, t in enumerate(TEXTS):
        j = post(java, {"text": t})["embedding"]
        p = post(port, {"text": t})["embedding"]
        single, batch = cos(p, j), cos(pb[i], jb[i])
        norm = math.sqrt(sum(x * x for x in p))
        # cosine cannot see a missing normalisation: the vector's length is checked on its own
        good = single >= 0.9999 and batch >= 0.9999 and abs(norm - 1) < 1e-4
        ok = ok and good
        label = f"sentence {i + 1}" if i < len(SENTENCES) else "long text (about 200 word pieces)"
        print(f"{name}: {label}: cosine({name}, java) {single:.9f} (1 - cos {1 - single:.1e}), batch form {batch:.9f}, "
              f"max |diff| {max(abs(x - y) for x, y in zip(p, j)):.2e}, {name}'s norm {norm:.7f}  {'ok' if good else 'FAIL'}")
    return ok


def main():
    java, peers = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    results = [check(java, name, port) for name, port in peers]
    print("check: " + ("passed" if all(results) else "FAILED") + " (each cosine >= 0.9999, each norm 1 within 1e-4)")
    sys.exit(0 if all(results) else 1)


main()
