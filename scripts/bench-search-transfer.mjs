#!/usr/bin/env node
// Bytes and requests per query of a static search, in real headless Chromium (Debian's
// /usr/bin/chromium; no browser is downloaded), for issue 5's side-by-side search benchmark.
//
//   node scripts/bench-search-transfer.mjs --site DIR [options]
//
// The script serves DIR itself over HTTP on 127.0.0.1 under a sub-path (--prefix, default /bench/,
// as GitHub Pages serves a project site): gzip when the client accepts it and the type is
// compressible (text, JS, JSON, XML, SVG, WASM; anything else, e.g. Pagefind's .pf_* and
// .pagefind files, which are gzip already, goes as is), `Cache-Control: max-age=600`, ETag and
// Last-Modified with 304s, a directory's index.html, the site's 404.html. Every response's bytes
// are counted as the server writes them to the socket (status line + headers + body, i.e. after
// compression, before TCP/TLS), so a resource the browser takes from its cache costs nothing.
//
// For each query Q_i in --queries, a fresh browser context (cold cache) is opened:
//   first query  Q_i: navigate to PREFIX + --url (with {q} = Q_i) and wait until --wait is true
//                     (a JavaScript expression evaluated in the page; {q} becomes the query as a
//                     JSON string). Counted from navigation start to that moment: the page, its CSS,
//                     JS, WASM, metadata, index shards and result data.
//   (settle)         then until no request has been in flight for --settle-ms: late requests are
//                     reported apart ("tail").
//   later query Q_{i+1} (the next query in the list, cyclically), in the same page and session
//                     (warm cache): with --input SEL, the input is filled and submitted (Enter, or a
//                     click on --submit SEL); without, or with --later navigate, the page navigates
//                     to the URL of Q_{i+1}. Then it waits until --wait-later (default: --wait) is
//                     true. Write the wait expression so that it cannot be true for the previous
//                     query's results, e.g. with {q}.
// So every query is measured once as a first query and once as a later query.
//
// Presets: --preset pagefind = --url 'pagefind-search/?q={q}' --wait 'document.body.dataset.done
// === {q}' --count 'Number(document.body.dataset.count)' --input '#q' (the tiny page that
// scripts/bench-pagefind writes into the site: pagefind.js, pagefind.search(q), then the first 10
// results' data(), as Pagefind's default UI does).
// For matome's own page, e.g.:
//   --url 'search/?q={q}' --input '#search-q' \
//   --wait "document.querySelectorAll('#search-results li').length > 0 && new URLSearchParams(location.search).get('q') === {q}"
//
// Options:
//   --site DIR          the built site (served under --prefix)                      (required)
//   --prefix P          sub-path the site is served under                            [/bench/]
//   --url T             page to open, relative to the prefix; {q} = URL-encoded query
//   --wait EXPR         results-are-there condition (JavaScript, in the page)
//   --wait-later EXPR   the same for the later query                                 [--wait]
//   --count EXPR        optional: number of results, evaluated after --wait
//   --input SEL         search input for the later query; --submit SEL: button to click [Enter]
//   --later MODE        input | navigate                   [input with --input, else navigate]
//   --queries A,B,...   [気候変動,日本銀行,半導体,ransomware]
//   --label NAME        shown in the output                                   [the site's folder]
//   --timeout-ms N      per query [120000]      --settle-ms N  quiet time that ends a phase [500]
//   --json FILE         write every figure (and every request) there
//   --chromium PATH     [/usr/bin/chromium]    --work DIR  where playwright-core is installed
//                       [target/bench-search-transfer]  --port N  [a free one]
//   --gzip-all          gzip every response, whatever its type (an upper bound for binary shards)
//   --serve-only        just serve the site (prints the URL) until killed, e.g. to look at it
//
// playwright-core (pinned in scripts/package.json) is installed with npm into --work on the first
// run. Output: a Markdown table on stdout (KB = 1,000 bytes) and, with --json, the details.

import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");

// ------------------------------------------------------------------ options

const PRESETS = {
  pagefind: {
    url: "pagefind-search/?q={q}",
    wait: "document.body.dataset.done === {q}",
    count: "Number(document.body.dataset.count)",
    input: "#q",
  },
};

function parseArgs(argv) {
  const o = {
    prefix: "/bench/",
    queries: "気候変動,日本銀行,半導体,ransomware",
    "timeout-ms": "120000",
    "settle-ms": "500",
    chromium: "/usr/bin/chromium",
    work: path.join(ROOT, "target", "bench-search-transfer"),
  };
  const flags = new Set(["serve-only", "gzip-all"]);
  const given = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-h" || a === "--help") {
      const src = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n");
      console.log(src.slice(1, src.findIndex((l) => l.startsWith("import"))).map((l) => l.replace(/^\/\/ ?/, "")).join("\n"));
      process.exit(0);
    }
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const k = a.slice(2);
    if (flags.has(k)) given[k] = true;
    else if (i + 1 < argv.length) given[k] = argv[++i];
    else throw new Error(`${a} needs a value`);
  }
  if (given.preset) {
    const p = PRESETS[given.preset];
    if (!p) throw new Error(`unknown preset ${given.preset} (known: ${Object.keys(PRESETS).join(", ")})`);
    Object.assign(o, p);
  }
  Object.assign(o, given);
  if (!o.site) throw new Error("--site DIR is required (see --help)");
  if (!o.prefix.startsWith("/")) o.prefix = "/" + o.prefix;
  if (!o.prefix.endsWith("/")) o.prefix += "/";
  if (!o["serve-only"] && (!o.url || !o.wait)) throw new Error("--url and --wait are required (or --preset)");
  o.later = o.later || (o.input ? "input" : "navigate");
  if (o.later === "input" && !o.input) throw new Error("--later input needs --input SEL");
  o.queryList = o.queries.split(",").map((s) => s.trim()).filter(Boolean);
  o.label = o.label || path.basename(path.resolve(o.site));
  return o;
}

// ------------------------------------------------------------------ the server

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".xml": "application/xml",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
};
const COMPRESSIBLE = /^(text\/|application\/(json|xml|javascript|wasm)|image\/svg)/;

class Server {
  constructor(root, prefix) {
    this.root = path.resolve(root);
    this.prefix = prefix;
    this.phase = "idle";
    this.log = [];
    this.inflight = 0;
    this.lastActivity = Date.now();
    this.gz = new Map(); // path -> {mtimeMs, buf}
    this.http = http.createServer((req, res) => this.handle(req, res));
    this.http.keepAliveTimeout = 60000;
  }

  listen(port) {
    return new Promise((ok) => this.http.listen(port || 0, "127.0.0.1", () => ok(this.http.address().port)));
  }

  close() {
    this.http.closeAllConnections?.();
    return new Promise((ok) => this.http.close(ok));
  }

  handle(req, res) {
    const sock = req.socket;
    const base = sock.bytesWritten;
    const entry = { phase: this.phase, method: req.method, url: req.url, t: Date.now() };
    this.inflight++;
    this.lastActivity = Date.now();
    res.on("finish", () => {
      entry.status = res.statusCode;
      entry.bytes = sock.bytesWritten - base;
      entry.encoding = res.getHeader("content-encoding") || "";
      entry.ms = Date.now() - entry.t;
      this.log.push(entry);
      this.inflight--;
      this.lastActivity = Date.now();
    });
    try {
      this.serve(req, res);
    } catch (e) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(e));
    }
  }

  notFound(res) {
    const p = path.join(this.root, "404.html");
    const body = fs.existsSync(p) ? fs.readFileSync(p) : Buffer.from("not found\n");
    res.writeHead(404, { "content-type": "text/html; charset=utf-8", "content-length": body.length });
    res.end(body);
  }

  serve(req, res) {
    const u = new URL(req.url, "http://x");
    if (!u.pathname.startsWith(this.prefix)) return this.notFound(res);
    let rel;
    try {
      rel = decodeURIComponent(u.pathname.slice(this.prefix.length));
    } catch {
      return this.notFound(res);
    }
    let file = path.join(this.root, rel);
    if (file !== this.root && !file.startsWith(this.root + path.sep)) return this.notFound(res);
    let st;
    try {
      st = fs.statSync(file);
    } catch {
      return this.notFound(res);
    }
    if (st.isDirectory()) {
      if (!u.pathname.endsWith("/")) {
        res.writeHead(301, { location: u.pathname + "/" + u.search, "content-length": 0 });
        return res.end();
      }
      file = path.join(file, "index.html");
      try {
        st = fs.statSync(file);
      } catch {
        return this.notFound(res);
      }
    }
    const type = MIME[path.extname(file).toLowerCase()] || "application/octet-stream";
    const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const headers = {
      "content-type": type,
      "cache-control": "max-age=600",
      etag,
      "last-modified": st.mtime.toUTCString(),
      vary: "Accept-Encoding",
    };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers);
      return res.end();
    }
    let body = fs.readFileSync(file);
    if ((this.gzipAll || COMPRESSIBLE.test(type)) && /\bgzip\b/.test(req.headers["accept-encoding"] || "")) {
      const c = this.gz.get(file);
      if (c && c.mtimeMs === st.mtimeMs) body = c.buf;
      else {
        const buf = zlib.gzipSync(body, { level: 6 });
        this.gz.set(file, { mtimeMs: st.mtimeMs, buf });
        body = buf;
      }
      headers["content-encoding"] = "gzip";
    }
    headers["content-length"] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : body);
  }

  async settle(quietMs, maxMs = 10000) {
    const t0 = Date.now();
    while (Date.now() - t0 < maxMs) {
      if (this.inflight === 0 && Date.now() - this.lastActivity >= quietMs) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// ------------------------------------------------------------------ the browser

async function loadPlaywright(work) {
  const pkg = path.join(work, "package.json");
  const want = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8"));
  const have = fs.existsSync(pkg) ? fs.readFileSync(pkg, "utf8") : "";
  const modDir = path.join(work, "node_modules", "playwright-core");
  if (have !== JSON.stringify(want, null, 2) || !fs.existsSync(modDir)) {
    fs.mkdirSync(work, { recursive: true });
    fs.writeFileSync(pkg, JSON.stringify(want, null, 2));
    console.error(`[bench-search-transfer] npm install in ${work}`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--omit=dev"], { cwd: work, stdio: ["ignore", 2, 2] });
  }
  const require = createRequire(pkg);
  const pw = await import(require.resolve("playwright-core"));
  const version = JSON.parse(fs.readFileSync(path.join(modDir, "package.json"), "utf8")).version;
  return { chromium: pw.chromium || pw.default.chromium, version };
}

const jsq = (q) => JSON.stringify(q);
const fill = (tpl, q, enc) => tpl.split("{q}").join(enc(q));

function summarize(log, phase) {
  const rs = log.filter((e) => e.phase === phase);
  return {
    requests: rs.length,
    bytes: rs.reduce((s, e) => s + e.bytes, 0),
    not200: rs.filter((e) => e.status !== 200).length,
  };
}

async function measureSession(browser, server, o, base, first, later) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const timeout = Number(o["timeout-ms"]);
  const out = { first: { query: first }, later: { query: later } };
  const count = async () => (o.count ? page.evaluate(o.count) : null);

  server.phase = `first`;
  let t0 = Date.now();
  await page.goto(base + fill(o.url, first, encodeURIComponent), { waitUntil: "commit", timeout });
  await waitFor(page, fill(o.wait, first, jsq), timeout);
  out.first.ms = Date.now() - t0;
  out.first.results = await count();
  server.phase = "first-tail";
  await server.settle(Number(o["settle-ms"]));

  server.phase = "later";
  t0 = Date.now();
  if (o.later === "input") {
    await page.fill(o.input, later);
    if (o.submit) await page.click(o.submit);
    else await page.press(o.input, "Enter");
  } else {
    await page.goto(base + fill(o.url, later, encodeURIComponent), { waitUntil: "commit", timeout });
  }
  await waitFor(page, fill(o["wait-later"] || o.wait, later, jsq), timeout);
  out.later.ms = Date.now() - t0;
  out.later.results = await count();
  server.phase = "later-tail";
  await server.settle(Number(o["settle-ms"]));
  server.phase = "idle";
  await ctx.close();

  for (const ph of ["first", "first-tail", "later", "later-tail"]) {
    const s = summarize(server.log, ph);
    const k = ph.split("-")[0];
    if (ph.endsWith("tail")) out[k].tail = s;
    else Object.assign(out[k], s);
  }
  out.requests = server.log.filter((e) => e.phase !== "idle");
  server.log = [];
  out.errors = errors;
  return out;
}

// Polls EXPR from Node (page.evaluate runs it through DevTools, which the pages' Content-Security-
// Policy does not govern; waitForFunction would eval it inside the page, which a CSP without
// 'unsafe-eval', like matome's, forbids).
async function waitFor(page, expr, timeout) {
  const t0 = Date.now();
  for (;;) {
    let v = false;
    try {
      v = await page.evaluate(expr);
    } catch (e) {
      if (!/Execution context was destroyed|navigation/i.test(String(e))) throw e;
    }
    if (v) return;
    if (Date.now() - t0 > timeout) throw new Error(`timed out after ${timeout} ms waiting for: ${expr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const kb = (b) => (b / 1000).toFixed(1);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const server = new Server(o.site, o.prefix);
  server.gzipAll = !!o["gzip-all"];
  const port = await server.listen(Number(o.port || 0));
  const base = `http://127.0.0.1:${port}${o.prefix}`;
  if (o["serve-only"]) {
    console.log(`serving ${server.root} at ${base}`);
    return;
  }
  const { chromium, version } = await loadPlaywright(path.resolve(o.work));
  const browser = await chromium.launch({ executablePath: o.chromium, args: ["--disable-gpu"] });
  const browserVersion = browser.version();
  const sessions = [];
  try {
    const qs = o.queryList;
    for (let i = 0; i < qs.length; i++) {
      const later = qs[(i + 1) % qs.length];
      console.error(`[bench-search-transfer] ${o.label}: first ${qs[i]}, later ${later}`);
      sessions.push(await measureSession(browser, server, o, base, qs[i], later));
    }
  } finally {
    await browser.close();
    await server.close();
  }

  const byQuery = new Map(o.queryList.map((q) => [q, {}]));
  for (const s of sessions) {
    byQuery.get(s.first.query).first = s.first;
    byQuery.get(s.later.query).later = s.later;
  }
  const lines = [
    `${o.label}: ${base}${o.url} — Chromium ${browserVersion}, playwright-core ${version}; KB = 1,000 bytes on the wire (gzip where it applies), requests that reached the server`,
    "",
    "| query | results | first query: requests | KB | ms | later query: requests | KB | ms | tails (req/KB) |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const [q, r] of byQuery) {
    const f = r.first, l = r.later;
    const tails = `${f.tail.requests}/${kb(f.tail.bytes)}, ${l.tail.requests}/${kb(l.tail.bytes)}`;
    lines.push(`| ${q} | ${f.results ?? ""} | ${f.requests} | ${kb(f.bytes)} | ${f.ms} | ${l.requests} | ${kb(l.bytes)} | ${l.ms} | ${tails} |`);
  }
  console.log(lines.join("\n"));
  const errs = sessions.flatMap((s) => s.errors);
  if (errs.length) console.log(`\npage errors: ${[...new Set(errs)].join(" | ")}`);
  if (o.json) {
    fs.writeFileSync(
      o.json,
      JSON.stringify({ label: o.label, site: path.resolve(o.site), url: base + o.url, options: o, chromium: browserVersion, playwright: version, sessions }, null, 1),
    );
    console.error(`[bench-search-transfer] wrote ${o.json}`);
  }
}

main().catch((e) => {
  console.error(`bench-search-transfer: ${e.stack || e}`);
  process.exit(1);
});
