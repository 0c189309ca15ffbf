// matome's search page: searches the static index under search/ (see src/search/static_index.rs)
// with no server, or `matome serve`'s API when the page is served by it. No framework, nothing
// from elsewhere (the pages' CSP allows only 'self').
//
// What a query matches is src/search/terms.rs's, mirrored here (the browser tests run the same
// queries through this page, `matome search` and serve's API and compare the hits): words
// separated by spaces are all required; "a quoted phrase" is one clause; -clause leaves out the
// items that have it. Text is NFKC and lower case; a word (letters, digits) matches by its
// Snowball English stem; CJK text matches as written, anywhere (幹線 finds 新幹線, a lone kanji
// such as 円 is a query); a clause of only English stop words or a lone kana has nothing to look
// for. Results are newest first; months are searched newest first, "load more" goes on. One hit
// per story (its newest match), with "+N sources" opening its other items.
(() => {
  'use strict';

  // The static index format this page reads (FORMAT in static_index.rs); `matome build` refuses
  // a site's own search.js whose SEARCH_FORMAT is not the one it writes.
  const SEARCH_FORMAT = 4;

  // ---------------------------------------------------------------------------------------------
  // Text: the terms of terms.rs.

  const CJK =
    /[\u3005-\u3007\u3041-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3ffff}\u1100-\u11ff\u3131-\u318e\uac00-\ud7a3]/u;
  const HAN = /[\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3ffff}]/u;
  const ALNUM = /[\p{Alphabetic}\p{N}]/u;
  const isCjk = (c) => CJK.test(c);
  const isHan = (c) => HAN.test(c);
  const isWord = (c) => !isCjk(c) && ALNUM.test(c);
  const normalize = (s) => s.normalize('NFKC').toLowerCase();

  // The terms of normalised text (terms.rs `scan`): {t, pos, kind: 'word'|'uni'|'bi', s, e}, s and
  // e UTF-16 indexes. `all`: a document's (every unigram), else a clause's (bigrams, and the
  // unigram of a one-character run).
  function scan(text, all) {
    const out = [];
    let pos = 0;
    let word = -1; // start of the current word
    let prev = null; // [index, char] of the current CJK run's previous character
    let run = 0;
    const endRun = () => {
      if (all || run === 1) out.push({ t: prev[1], pos, kind: 'uni', s: prev[0], e: prev[0] + prev[1].length });
      pos++;
      prev = null;
      run = 0;
    };
    const endWord = (e) => {
      out.push({ t: stem(text.slice(word, e)), pos: pos++, kind: 'word', s: word, e });
      word = -1;
    };
    let i = 0;
    for (const c of text) {
      if (isCjk(c)) {
        if (word >= 0) endWord(i);
        if (prev) {
          if (all) out.push({ t: prev[1], pos, kind: 'uni', s: prev[0], e: prev[0] + prev[1].length });
          out.push({ t: prev[1] + c, pos, kind: 'bi', s: prev[0], e: i + c.length });
          pos++;
        }
        prev = [i, c];
        run++;
      } else {
        if (prev) endRun();
        if (isWord(c)) { if (word < 0) word = i; }
        else if (word >= 0) endWord(i);
      }
      i += c.length;
    }
    if (prev) endRun();
    if (word >= 0) endWord(text.length);
    return out;
  }

  // What the static index keeps: words, bigrams, unigrams of kanji.
  const indexed = (x) => x.kind !== 'uni' || Array.from(x.t).every(isHan);
  // The index terms of normalised text, in order (static_index::for_each_term).
  const termsOf = (text) => scan(text, true).filter(indexed).map((x) => x.t);

  // FNV-1a (32-bit) of the UTF-8 bytes, folded: bucket_of in Rust.
  const utf8 = new TextEncoder();
  function bucketOf(term, buckets) {
    let h = 0x811c9dc5;
    for (const b of utf8.encode(term)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    return ((h ^ (h >>> 16)) >>> 0) & (buckets - 1);
  }

  // ---------------------------------------------------------------------------------------------
  // The Snowball English (Porter2) stemmer, as rust-stemmers 1.2 has it (its english.sbl).

  const V = new Set('aeiouy');
  const V_WXY = new Set('aeiouywxY');
  const VALID_LI = new Set('cdeghkmnrt');
  const EXCEPTION1 = {
    skis: 'ski', skies: 'sky', dying: 'die', lying: 'lie', tying: 'tie', idly: 'idl',
    gently: 'gentl', ugly: 'ugli', early: 'earli', only: 'onli', singly: 'singl',
    sky: 'sky', news: 'news', howe: 'howe', atlas: 'atlas', cosmos: 'cosmos', bias: 'bias',
    andes: 'andes',
  };
  const EXCEPTION2 = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);
  const STEP1B = ['eedly', 'ingly', 'edly', 'eed', 'ing', 'ed'];
  const STEP2 = {
    tional: 'tion', enci: 'ence', anci: 'ance', abli: 'able', entli: 'ent', izer: 'ize',
    ization: 'ize', ational: 'ate', ation: 'ate', ator: 'ate', alism: 'al', aliti: 'al',
    alli: 'al', fulness: 'ful', ousli: 'ous', ousness: 'ous', iveness: 'ive', iviti: 'ive',
    biliti: 'ble', bli: 'ble', ogi: 'og', fulli: 'ful', lessli: 'less', li: '',
  };
  const STEP3 = { tional: 'tion', ational: 'ate', alize: 'al', icate: 'ic', iciti: 'ic', ical: 'ic', ful: '', ness: '', ative: '' };
  const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion'];
  const byLength = (list) => list.slice().sort((a, b) => b.length - a.length);
  const STEP2_KEYS = byLength(Object.keys(STEP2));
  const STEP3_KEYS = byLength(Object.keys(STEP3));
  const STEP4_KEYS = byLength(STEP4);

  function stem(word) {
    if (Object.prototype.hasOwnProperty.call(EXCEPTION1, word)) return EXCEPTION1[word];
    let w = Array.from(word);
    if (w.length < 3) return word;
    // prelude
    if (w[0] === "'") w.shift();
    let yFound = false;
    if (w[0] === 'y') { w[0] = 'Y'; yFound = true; }
    for (let i = 0; i + 1 < w.length; i++) {
      if (V.has(w[i]) && w[i + 1] === 'y') { w[i + 1] = 'Y'; yFound = true; }
    }
    // mark_regions
    let p1 = w.length;
    let p2 = w.length;
    const gopastVNonV = (from) => {
      let i = from;
      while (i < w.length && !V.has(w[i])) i++;
      if (i >= w.length) return -1;
      i++;
      while (i < w.length && V.has(w[i])) i++;
      if (i >= w.length) return -1;
      return i + 1;
    };
    const head = w.slice(0, 6).join('');
    let start = -1;
    for (const p of ['commun', 'gener', 'arsen']) if (head.startsWith(p)) { start = p.length; break; }
    if (start < 0) start = gopastVNonV(0);
    if (start >= 0) {
      p1 = start;
      const q = gopastVNonV(p1);
      if (q >= 0) p2 = q;
    }
    const ends = (s) => {
      if (s.length > w.length) return false;
      for (let i = 0; i < s.length; i++) if (w[w.length - s.length + i] !== s[i]) return false;
      return true;
    };
    const longest = (keys) => keys.find(ends);
    const replace = (len, s) => { w.splice(w.length - len, len, ...s); };
    const hasV = (from, to) => { for (let i = from; i < to; i++) if (V.has(w[i])) return true; return false; };
    // shortv, looking at the characters before position `pos`.
    const shortv = (pos) =>
      (pos >= 3 && !V_WXY.has(w[pos - 1]) && V.has(w[pos - 2]) && !V.has(w[pos - 3])) ||
      (pos === 2 && !V.has(w[1]) && V.has(w[0]));

    // Step_1a
    if (ends("'s'")) replace(3, '');
    else if (ends("'s")) replace(2, '');
    else if (ends("'")) replace(1, '');
    {
      const s = longest(['sses', 'ied', 'ies', 'us', 'ss', 's']);
      if (s === 'sses') replace(4, 'ss');
      else if (s === 'ied' || s === 'ies') replace(3, w.length - 3 > 1 ? 'i' : 'ie');
      else if (s === 's') {
        const bra = w.length - 1;
        if (bra >= 1 && hasV(0, bra - 1)) replace(1, '');
      }
    }
    if (!EXCEPTION2.has(w.join(''))) {
      // Step_1b
      const s = longest(STEP1B);
      if (s === 'eed' || s === 'eedly') {
        if (w.length - s.length >= p1) replace(s.length, 'ee');
      } else if (s && hasV(0, w.length - s.length)) {
        replace(s.length, '');
        if (ends('at') || ends('bl') || ends('iz')) w.push('e');
        else if (['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt'].some(ends)) w.pop();
        else if (w.length === p1 && shortv(w.length)) w.push('e');
      }
      // Step_1c
      if ((ends('y') || ends('Y')) && w.length >= 3 && !V.has(w[w.length - 2])) replace(1, 'i');
      // Step_2
      let k = longest(STEP2_KEYS);
      if (k && w.length - k.length >= p1) {
        const bra = w.length - k.length;
        if (k === 'ogi') { if (w[bra - 1] === 'l') replace(3, 'og'); }
        else if (k === 'li') { if (bra > 0 && VALID_LI.has(w[bra - 1])) replace(2, ''); }
        else replace(k.length, STEP2[k]);
      }
      // Step_3
      k = longest(STEP3_KEYS);
      if (k && w.length - k.length >= p1) {
        if (k === 'ative') { if (w.length - 5 >= p2) replace(5, ''); }
        else replace(k.length, STEP3[k]);
      }
      // Step_4
      k = longest(STEP4_KEYS);
      if (k && w.length - k.length >= p2) {
        const bra = w.length - k.length;
        if (k === 'ion') { if (w[bra - 1] === 's' || w[bra - 1] === 't') replace(3, ''); }
        else replace(k.length, '');
      }
      // Step_5
      if (ends('e')) {
        const bra = w.length - 1;
        if (bra >= p2 || (bra >= p1 && !shortv(bra))) replace(1, '');
      } else if (ends('l')) {
        const bra = w.length - 1;
        if (bra >= p2 && w[bra - 1] === 'l') replace(1, '');
      }
    }
    // postlude
    if (yFound) w = w.map((c) => (c === 'Y' ? 'y' : c));
    return w.join('');
  }

  // ---------------------------------------------------------------------------------------------
  // Queries (terms.rs `parse_query`, `clause_terms`).

  // Splits a query into clauses: {neg, text, terms}; `stop`: the English stop words (from the
  // manifest). Clauses with nothing to look for are dropped.
  function parseQuery(q, stop) {
    const s = q.trim();
    const units = [];
    const space = /\s/;
    let i = 0;
    while (i < s.length) {
      while (i < s.length && space.test(s[i])) i++;
      if (i >= s.length) break;
      let neg = false;
      if ('-\uff0d\u2212'.includes(s[i]) && i + 1 < s.length && !space.test(s[i + 1])) { neg = true; i++; }
      let text;
      if ('"\u201c\uff02'.includes(s[i])) {
        let j = i + 1;
        while (j < s.length && !'"\u201d\uff02'.includes(s[j])) j++;
        text = s.slice(i + 1, j);
        i = j + 1;
      } else {
        let j = i;
        while (j < s.length && !space.test(s[j])) j++;
        text = s.slice(i, j);
        i = j;
      }
      text = text.trim();
      if (!text) continue;
      const norm = normalize(text);
      const terms = scan(norm, false);
      const searchable = terms.some((x) =>
        x.kind === 'bi' || (x.kind === 'word' ? !stop.has(norm.slice(x.s, x.e)) : Array.from(x.t).every(isHan)));
      if (searchable) units.push({ neg, text: norm, terms });
    }
    return units;
  }

  // Where a clause occurs in normalised text: [start, end) pairs (UTF-16 indexes), its terms at
  // their relative positions (terms.rs `matches_clause`).
  function occurrences(text, u) {
    const at = new Map();
    for (const x of scan(text, true)) {
      if (!at.has(x.t)) at.set(x.t, new Map());
      at.get(x.t).set(x.pos, x);
    }
    const first = u.terms[0];
    const out = [];
    for (const [p] of at.get(first.t) || []) {
      let s = Infinity;
      let e = -1;
      const ok = u.terms.every((t) => {
        const hit = at.get(t.t) && at.get(t.t).get(p + t.pos - first.pos);
        if (hit) { s = Math.min(s, hit.s); e = Math.max(e, hit.e); }
        return hit;
      });
      if (ok) out.push([s, e]);
    }
    return out;
  }

  // Whether an item passes every clause (and the category filter).
  function matches(doc, units, category) {
    if (category && doc.category !== category) return false;
    const fields = [normalize(doc.title), normalize(doc.summary)];
    for (const u of units) {
      const has = fields.some((f) => occurrences(f, u).length > 0);
      if (has === u.neg) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // The index files.

  function readVarint(bytes, pos) {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (pos.i >= bytes.length) throw new Error('truncated search file');
      const b = bytes[pos.i++];
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) return v;
      mul *= 128;
    }
  }

  // A bucket file: term (string) → {df, kind, len, ext, start}: `ext` is K of the term's own file
  // (bXXX-K.bin) or -1 when its list is in the bucket, from `start`.
  function parseBucket(buf) {
    const bytes = new Uint8Array(buf);
    if (bytes[0] !== SEARCH_FORMAT) throw new Error('unknown search bucket format');
    const pos = { i: 1 };
    const n = readVarint(bytes, pos);
    const dec = new TextDecoder();
    const heads = [];
    let prev = new Uint8Array(0);
    for (let k = 0; k < n; k++) {
      const shared = readVarint(bytes, pos);
      const len = readVarint(bytes, pos);
      const term = new Uint8Array(shared + len);
      term.set(prev.subarray(0, shared));
      term.set(bytes.subarray(pos.i, pos.i + len), shared);
      pos.i += len;
      const df = readVarint(bytes, pos);
      const pl = readVarint(bytes, pos);
      heads.push({ term: dec.decode(term), df, kind: pl % 2, external: Math.floor(pl / 2) % 2 === 1, len: Math.floor(pl / 4) });
      prev = term;
    }
    const terms = new Map();
    let off = pos.i;
    let ext = 0;
    for (const h of heads) {
      if (h.external) terms.set(h.term, { df: h.df, kind: h.kind, len: h.len, ext: ext++, start: -1 });
      else {
        terms.set(h.term, { df: h.df, kind: h.kind, len: h.len, ext: -1, start: off });
        off += h.len;
      }
    }
    return { bytes, terms };
  }

  // A posting list's item numbers, ascending.
  function decodeList(info, bytes) {
    const out = new Uint32Array(info.df);
    const pos = { i: 0 };
    if (info.kind === 0) {
      let d = 0;
      for (let k = 0; k < info.df; k++) {
        d = k === 0 ? readVarint(bytes, pos) : d + readVarint(bytes, pos);
        out[k] = d;
      }
    } else {
      const first = readVarint(bytes, pos);
      let k = 0;
      for (let j = pos.i; j < bytes.length; j++) {
        const b = bytes[j];
        if (!b) continue;
        for (let bit = 0; bit < 8; bit++) if (b & (1 << bit)) out[k++] = first + (j - pos.i) * 8 + bit;
      }
    }
    return out;
  }

  function intersect(a, b) {
    const out = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] < b[j]) i++;
      else if (a[i] > b[j]) j++;
      else { out.push(a[i]); i++; j++; }
    }
    return out;
  }

  // Results per page ("load more" shows as many again).
  const PAGE = 20;
  const hex = (b) => b.toString(16).padStart(3, '0');

  class Index {
    constructor(base) {
      this.base = base;
      this.files = new Map();
    }
    get(url, kind) {
      if (!this.files.has(url)) {
        const p = fetch(url, kind === 'manifest' ? { cache: 'no-cache' } : {}).then((r) => {
          if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
          if (kind === 'bin') return r.arrayBuffer().then(parseBucket);
          if (kind === 'raw') return r.arrayBuffer().then((b) => new Uint8Array(b));
          return r.json();
        });
        p.catch(() => this.files.delete(url));
        this.files.set(url, p);
      }
      return this.files.get(url);
    }
    manifest() {
      return this.get(`${this.base}manifest.json`, 'manifest').then((m) => {
        if (m.format !== SEARCH_FORMAT) throw new Error(`search index format ${m.format} is not supported`);
        return m;
      });
    }
    bucket(m, b) {
      return this.get(`${this.base}${m.month}/b${hex(b)}.bin?v=${m.v}`, 'bin');
    }
    // The posting list of `term`, whose bucket is `bucket`.
    async list(m, term, bucket) {
      const info = bucket.terms.get(term);
      if (!info) return new Uint32Array(0);
      if (info.ext < 0) return decodeList(info, bucket.bytes.subarray(info.start, info.start + info.len));
      const b = bucketOf(term, m.buckets);
      return decodeList(info, await this.get(`${this.base}${m.month}/b${hex(b)}-${info.ext}.bin?v=${m.v}`, 'raw'));
    }
    chunk(m, k) {
      return this.get(`${this.base}${m.month}/c${k}.json?v=${m.v}`, 'json');
    }
    // The month's sites, categories, digest URLs and links' origins, which its rows name by
    // number, and the time its rows' times count from.
    names(m) {
      return this.get(`${this.base}${m.month}/n.json?v=${m.v}`, 'json');
    }
    async doc(m, n) {
      const [rows, names] = await Promise.all([this.chunk(m, Math.floor(n / m.chunk)), this.names(m)]);
      const r = rows[n % m.chunk];
      if (!r) return null;
      // The link: [origin's number, the rest of it], or "" for none.
      const link = Array.isArray(r[2]) ? names.origins[r[2][0]] + r[2][1] : '';
      const doc = {
        month: m.month, n, title: r[0], summary: r[1], link, site: names.sites[r[3]],
        category: names.categories[r[4]], published: names.base + r[5], digest: names.digests[r[6]],
      };
      // A story of several items: [items, sites, member...], a member an item number of this
      // month or "YYYY-MM:N"; the first names the story.
      const st = r[7];
      if (!Array.isArray(st)) return doc;
      const ref = (x) => (typeof x === 'number' ? `${m.month}:${x}` : String(x));
      doc.story = ref(st[2]);
      doc.more = st[1] > 1 ? st[1] - 1 : st[0] - 1;
      doc.others = () => Promise.all(st.slice(2).map(ref).filter((x) => x !== `${m.month}:${n}`).map((x) => {
        const [month, k] = x.split(':');
        const other = this.months && this.months.get(month);
        return other ? this.doc(other, Number(k)) : null;
      })).then((ds) => ds.filter(Boolean));
      return doc;
    }
  }

  // A date input's value (YYYY-MM-DD) as the manifest's day key (YYYYMMDD), or null.
  const dayKey = (d) => (/^\d{4}-\d{2}-\d{2}$/.test(d) ? Number(d.replace(/-/g, '')) : null);

  // One search: yields verified items newest first, `want` at a time.
  class Search {
    constructor(index, manifest, { q, category, from, to }) {
      this.index = index;
      index.months = new Map(manifest.months.map((m) => [m.month, m]));
      this.seen = new Set(); // stories shown
      this.units = parseQuery(q || '', new Set(manifest.stop || []));
      this.category = category || '';
      // Every clause is checked in the text, so once few candidates are left the long lists
      // (files of their own) can be skipped.
      this.pos = [...new Set(this.units.filter((u) => !u.neg).flatMap((u) => u.terms.filter(indexed).map((x) => x.t)))];
      if (category) this.pos.push('\u0001' + category);
      this.from = dayKey(from || '');
      this.to = dayKey(to || '');
      // Months whose items were published within the dates (a shard may hold a late item of an
      // earlier month: its days say so).
      this.months = manifest.months.filter((m) => {
        if (!m.days.length) return false;
        const [first, last] = [m.days[0][0], m.days[m.days.length - 1][0]];
        return (this.from === null || last >= this.from) && (this.to === null || first <= this.to);
      });
      this.mi = 0;
      this.cands = [];
      this.ci = 0;
      this.month = null;
      this.done = false;
    }
    get searchable() {
      return this.pos.length > 0;
    }
    // Item numbers of month m that may match, newest first: the lists of the positive terms are
    // read rarest first (those in their buckets before those in files of their own); once a page
    // or fewer of candidates is left, the other long lists are skipped (the text decides).
    async candidates(m) {
      const [lo, hi] = this.range(m);
      if (lo >= hi) return [];
      const buckets = new Map();
      await Promise.all(
        [...new Set(this.pos.map((t) => bucketOf(t, m.buckets)))].map(async (b) => buckets.set(b, await this.index.bucket(m, b))),
      );
      const bucket = (t) => buckets.get(bucketOf(t, m.buckets));
      const terms = this.pos.map((t) => ({ t, info: bucket(t).terms.get(t) }));
      if (terms.some((x) => !x.info)) return [];
      terms.sort((a, b) => (a.info.ext >= 0) - (b.info.ext >= 0) || a.info.df - b.info.df);
      let docs = null;
      for (const { t, info } of terms) {
        if (docs && docs.length <= PAGE && info.ext >= 0) continue;
        const list = await this.index.list(m, t, bucket(t));
        docs = docs ? intersect(docs, list) : Array.from(list).filter((d) => d >= lo && d < hi);
        if (!docs.length) return [];
      }
      return docs.reverse();
    }
    // The month's items published within the dates: [lo, hi).
    range(m) {
      const first = (pred) => {
        const d = m.days.find(([day]) => pred(day));
        return d ? d[1] : m.docs;
      };
      const lo = this.from === null ? 0 : first((day) => day >= this.from);
      const hi = this.to === null ? m.docs : first((day) => day > this.to);
      return [lo, hi];
    }
    // Up to `want` more items; `onItems` receives them as they are confirmed.
    async next(want, onItems) {
      let found = 0;
      let fetched = 0;
      while (found < want && !this.done) {
        if (this.ci >= this.cands.length) {
          if (this.mi >= this.months.length) { this.done = true; break; }
          this.month = this.months[this.mi++];
          this.cands = await this.candidates(this.month);
          this.ci = 0;
          continue;
        }
        // Enough candidates for what is missing (a few more when some may fail the check).
        const m = this.month;
        const batch = this.cands.slice(this.ci, this.ci + (want - found));
        this.ci += batch.length;
        fetched += batch.length;
        const docs = (await Promise.all(batch.map((n) => this.index.doc(m, n)))).filter(
          (d) => d && matches(d, this.units, this.category) && (!d.story || (!this.seen.has(d.story) && this.seen.add(d.story))),
        );
        found += docs.length;
        if (docs.length) onItems(docs);
        if (fetched >= want * 8) break; // many candidates failed: let the reader ask for more
      }
      return found;
    }
    get more() {
      return !this.done && (this.ci < this.cands.length || this.mi < this.months.length);
    }
  }

  // The same search through `matome serve`'s API (the live tantivy index), when the page is
  // served by it: same units (for highlighting), same newest-first order, same "load more".
  class ApiSearch {
    constructor(api, manifest, { q, category, from, to, sort }) {
      this.api = api;
      this.q = q || '';
      this.units = parseQuery(this.q, new Set(manifest.stop || []));
      this.category = category || '';
      this.from = from || '';
      this.to = to || '';
      this.sort = sort === 'relevance' ? 'relevance' : 'date';
      this.offset = 0;
      this.done = false;
    }
    get searchable() {
      return this.units.some((u) => !u.neg);
    }
    async next(want, onItems) {
      const p = new URLSearchParams({ q: this.q, limit: String(want), offset: String(this.offset), sort: this.sort });
      if (this.category) p.set('category', this.category);
      if (this.from) p.set('since', this.from);
      if (this.to) p.set('until', this.to);
      const r = await fetch(`${this.api}?${p}`, { cache: 'no-store' });
      if (!r.ok) throw new Error(`${this.api}: HTTP ${r.status}`);
      const hits = (await r.json()).hits || [];
      this.offset += hits.length;
      if (hits.length < want) this.done = true;
      const docs = hits.map((h) => ({
        title: h.title, summary: h.summary, link: h.link, site: h.site, category: h.category,
        published: Date.parse(h.published) / 1000, href: h.url,
        more: h.story_sites > 1 ? h.story_sites - 1 : (h.story_items || 1) - 1,
        others: () => Promise.resolve((h.others || []).map((o) => ({ ...o, href: o.url }))),
      }));
      if (docs.length) onItems(docs);
      return docs.length;
    }
    get more() {
      return !this.done;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Showing results.

  // Character ranges of `orig` to highlight for the units (approximate: per-character NFKC).
  function highlights(orig, units) {
    const cps = Array.from(orig);
    let norm = '';
    const at = []; // norm UTF-16 index → index in cps
    const starts = []; // cps index → UTF-16 index in orig
    let o = 0;
    cps.forEach((c, k) => {
      starts.push(o);
      o += c.length;
      const n = normalize(c);
      for (let j = 0; j < n.length; j++) at.push(k);
      norm += n;
    });
    starts.push(o);
    at.push(cps.length);
    const ranges = [];
    const toOrig = (s, e) => [starts[at[s]], starts[at[e - 1] + 1]];
    for (const u of units) {
      if (!u.neg) for (const [s, e] of occurrences(norm, u)) ranges.push(toOrig(s, e));
    }
    ranges.sort((a, b) => a[0] - b[0]);
    return ranges;
  }

  function marked(el, text, units) {
    let last = 0;
    for (const [s, e] of highlights(text, units)) {
      if (s < last) continue; // overlaps the previous mark
      el.append(text.slice(last, s));
      const m = document.createElement('mark');
      m.textContent = text.slice(s, e);
      el.append(m);
      last = e;
    }
    el.append(text.slice(last));
    return el;
  }

  // "YYYY-MM-DD HH:MM" in the site's time zone (the form's data-tz), as every page shows times,
  // whatever the browser's zone.
  let clock = null;
  function stamp(secs, tz) {
    if (!clock || clock.tz !== tz) {
      const opts = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
      let f;
      try { f = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: tz || undefined }); } catch (e) { f = new Intl.DateTimeFormat('en-US', opts); }
      clock = { tz, f };
    }
    const p = {};
    for (const x of clock.f.formatToParts(new Date(secs * 1000))) p[x.type] = x.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour === '24' ? '00' : p.hour}:${p.minute}`;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function render(doc, units, ui) {
    const li = el('li', 'hit');
    const h = el('h2', 'hit-title');
    const safe = /^https?:\/\//i.test(doc.link);
    const title = safe ? el('a') : el('span');
    if (safe) {
      title.href = doc.link;
      title.rel = 'noopener noreferrer';
    }
    h.append(marked(title, doc.title, units));
    li.append(h);
    const meta = el('p', 'hit-meta');
    meta.append(el('span', 'hit-category', doc.category), ' ', el('span', 'hit-site', doc.site), ' ');
    const time = el('time', null, stamp(doc.published, ui.tz));
    time.dateTime = new Date(doc.published * 1000).toISOString();
    meta.append(time, ' ');
    const digest = el('a', 'hit-digest', ui.t.digest);
    digest.href = doc.href || ui.root + doc.digest.replace(/^\//, '');
    meta.append(digest);
    li.append(meta);
    if (doc.summary) li.append(marked(el('p', 'hit-summary'), doc.summary, units));
    if (doc.more > 0) li.append(sources(doc, ui));
    return li;
  }

  // "+N sources": the story's other items (site and title), filled in as they load.
  function sources(doc, ui) {
    const box = el('details', 'hit-story');
    box.append(el('summary', null, (ui.t.msgSources || '+{n} sources').replace('{n}', doc.more)));
    const list = el('ul', 'hit-others');
    box.append(list);
    doc.others().then((others) => {
      for (const o of others) {
        const safe = /^https?:\/\//i.test(o.link);
        const a = el(safe ? 'a' : 'span', null, o.title);
        if (safe) { a.href = o.link; a.rel = 'noopener noreferrer'; }
        const li = el('li');
        li.append(el('span', 'hit-site', o.site), ' ', a);
        list.append(li);
      }
    }, (e) => console.error(e));
    return box;
  }

  // ---------------------------------------------------------------------------------------------
  // The page.

  function start() {
    const form = document.getElementById('search-form');
    if (!form) return;
    const ui = {
      root: form.dataset.root,
      input: document.getElementById('search-q'),
      category: document.getElementById('search-category'),
      from: document.getElementById('search-from'),
      to: document.getElementById('search-to'),
      status: document.getElementById('search-status'),
      list: document.getElementById('search-results'),
      more: document.getElementById('search-more'),
      sort: document.getElementById('search-sort'),
      tz: form.dataset.tz,
      t: form.dataset,
    };
    const index = new Index(form.dataset.index);
    // `matome serve` announces its search API; on GitHub Pages there is none.
    const apiMeta = document.querySelector('meta[name="matome-api"]');
    const api = apiMeta ? apiMeta.content : null;
    // Relevance needs the live index; the static one gives newest first only.
    if (api && ui.sort) ui.sort.closest('.search-field').hidden = false;
    const pageTitle = document.title;
    const say = (key, n) => { ui.status.textContent = (ui.t[key] || '').replace('{n}', n); };
    const setState = (s) => { ui.list.dataset.state = s; };
    let manifest = null;
    let current = null;
    let shown = 0;

    const params = () => {
      const p = new URLSearchParams(location.search);
      const sort = api && p.get('sort') === 'relevance' ? 'relevance' : 'date';
      return { q: p.get('q') || '', category: p.get('category') || '', from: p.get('from') || '', to: p.get('to') || '', sort };
    };

    async function page(search) {
      setState('searching');
      ui.more.hidden = true;
      say('msgSearching');
      try {
        await search.next(PAGE, (docs) => {
          if (search !== current) return;
          for (const d of docs) ui.list.append(render(d, search.units, ui));
          shown += docs.length;
        });
      } catch (e) {
        if (search === current) { say('msgError'); setState('error'); console.error(e); }
        return;
      }
      if (search !== current) return;
      ui.more.hidden = !search.more;
      if (!shown) say(search.more ? 'msgNoneYet' : 'msgNone', 0);
      else say(search.more ? 'msgMore' : 'msgCount', shown);
      setState(search.more ? 'more' : 'done');
    }

    async function run() {
      const p = params();
      ui.input.value = p.q;
      ui.from.value = p.from;
      ui.to.value = p.to;
      if (ui.sort) ui.sort.value = p.sort;
      ui.list.replaceChildren();
      ui.more.hidden = true;
      shown = 0;
      current = null;
      try {
        manifest = manifest || (await index.manifest());
      } catch (e) {
        say('msgError');
        setState('error');
        console.error(e);
        return;
      }
      if (ui.category.options.length <= 1) {
        for (const c of manifest.categories) ui.category.append(new Option(c, c));
      }
      ui.category.value = manifest.categories.includes(p.category) ? p.category : '';
      document.title = pageTitle;
      if (!p.q.trim() && !p.category) { ui.status.textContent = ''; setState('idle'); return; }
      const opts = { ...p, category: ui.category.value };
      const search = api ? new ApiSearch(api, manifest, opts) : new Search(index, manifest, opts);
      if (!search.searchable) { say('msgShort'); setState('done'); return; }
      current = search;
      document.title = `${p.q || ui.category.value} | ${pageTitle}`;
      await page(search);
    }

    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const p = new URLSearchParams();
      p.set('q', ui.input.value.trim());
      for (const [k, f] of [['category', ui.category], ['from', ui.from], ['to', ui.to]]) if (f.value) p.set(k, f.value);
      if (api && ui.sort && ui.sort.value === 'relevance') p.set('sort', 'relevance');
      history.pushState(null, '', `${location.pathname}?${p}`);
      run();
    });
    ui.more.addEventListener('click', () => { if (current && current.more) page(current); });
    window.addEventListener('popstate', run);
    run();
  }

  // For the tests: the page's terms and clauses beside the Rust ones.
  const clauseTerms = (q, stop) => parseQuery(q, new Set(stop)).map((u) => ({ neg: u.neg, terms: u.terms.map((x) => [x.t, x.pos]) }));
  window.matomeSearch = { stem, normalize, termsOf, bucketOf, parseQuery, clauseTerms, stamp };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
