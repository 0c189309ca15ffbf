#!/usr/bin/env python3
"""Converts a matome archive into the equivalent Hugo site, for scripts/bench-build (a benchmark,
not a test). Python 3.11+ (tomllib), standard library only.

    scripts/hugo-site.py convert [--legacy] ARCHIVE HUGO_SITE   # whole archive -> new Hugo site
    scripts/hugo-site.py add SNAPSHOT.md HUGO_SITE     # one more digest into an existing site

The mapping (what `matome build` renders -> what Hugo is asked to do):

  one snapshot content/YYYY/MM/DD/HHMM.md (a digest of ~45 items)
      -> content/digests/YYYY/MM/DD/HHMM.md, a rendered page (section `digests`) whose body is a
         Markdown table of its items (category, site, title linked, 頻出ワード linked to their term
         pages, summary, date), followed by the snapshot's own Markdown body;
  each [[items]] entry
      -> content/items/YYYY/MM/DD/HHMM-NN.md, a page with `build: {render: link, list: always}`:
         never written to disk, but in every page collection, so the taxonomies list it
         (`render: never` would be wrong: in Hugo 0.168 it also drops the page from every
         collection, so no term would list it; checked, the term pages came out empty). Front
         matter: title, date (= published), link, summary, digest (its digest's path) and the
         taxonomies `categories` = [category], `sources` = [site] (not `sites`: a reserved front
         matter key in current Hugo), `keywords` = its 頻出ワード; the
         body is the item's text (never rendered by the templates);
  day / month / year archive pages
      -> the nested sections digests/YYYY/MM/DD/, digests/YYYY/MM/, digests/YYYY/ (an _index.md
         each) listing their children;
  home = latest digests, 20 a page
      -> layouts/index.html: .Paginate (digests, newest first) 20;
  a page per category, per site, per 頻出ワード listing its ITEMS, newest first, 50 a page
      -> the taxonomies categories/sources/keywords; layouts/term.html: .Paginate .Pages.ByDate.Reverse 50,
         one table row per item (the same cells as a digest's table, through one partial);
         taxonomy.html lists the terms with their counts.

Only HTML is produced: RSS, sitemap, robots.txt and 404 are disabled (Hugo's default RSS would list
every item of every term, unbounded). The templates are minimal but real: every listed item's title,
link, site, category, keywords, summary and date are printed. Templates live at the top of layouts/
(Hugo >= 0.146's template system: with them in layouts/_default/, Hugo 0.168 renders the term pages
with taxonomy.html, not term.html). --legacy is for older Hugo (Debian's 0.111): templates in
layouts/_default/ and the build options under `_build`, which 0.111 reads (it ignores `build` and
renders every item); `add` sees which from the site's layouts/.
"""

import os
import re
import sys
import tomllib
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path
from urllib.parse import quote
from zoneinfo import ZoneInfo

TZ = ZoneInfo("Asia/Tokyo")

HUGO_TOML = """\
baseURL = "{base_url}"
title = {title}
defaultContentLanguage = "ja"
timeZone = "Asia/Tokyo"
disableKinds = ["RSS", "sitemap", "robotsTXT", "404"]

[taxonomies]
category = "categories"
source = "sources"
keyword = "keywords"
"""

LAYOUTS = {
    "baseof.html": """\
<!doctype html>
<html lang="ja">
<head><meta charset="utf-8"><title>{{ if not .IsHome }}{{ .Title }} | {{ end }}{{ site.Title }}</title></head>
<body>
<header><a href="{{ site.Home.RelPermalink }}">{{ site.Title }}</a></header>
<main>
{{ block "main" . }}{{ end }}
</main>
</body>
</html>
""",
    # Home: the latest digests, 20 a page.
    "index.html": """\
{{ define "main" }}
{{ $p := .Paginate (where site.RegularPages "Section" "digests").ByDate.Reverse 20 }}
<h1>最新のまとめ</h1>
<ul>
{{ range $p.Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> <time>{{ .Date.Format "2006-01-02 15:04" }}</time></li>
{{ end }}</ul>
{{ partial "pager.html" $p }}
{{ end }}
""",
    # Section pages: digests/, digests/YYYY/, digests/YYYY/MM/, digests/YYYY/MM/DD/.
    "list.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
<ul>
{{ range .Pages.ByTitle }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>
{{ end }}</ul>
{{ end }}
""",
    # One digest: its Markdown table.
    "single.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
<p><time>{{ .Date.Format "2006-01-02 15:04" }}</time></p>
{{ .Content }}
{{ end }}
""",
    # /categories/, /sources/, /keywords/: every term with its item count.
    "taxonomy.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
<ul>
{{ range .Data.Terms.ByCount }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>
{{ end }}</ul>
{{ end }}
""",
    # One category / site / keyword: its items, newest first, 50 a page.
    "term.html": """\
{{ define "main" }}
{{ $p := .Paginate .Pages.ByDate.Reverse 50 }}
<h1>{{ .Title }}</h1>
<table>
<thead><tr><th>カテゴリ</th><th>サイト</th><th>タイトル</th><th>頻出ワード</th><th>要約</th><th>日時</th></tr></thead>
<tbody>
{{ range $p.Pages }}{{ partial "item-row.html" . }}{{ end }}
</tbody>
</table>
{{ partial "pager.html" $p }}
{{ end }}
""",
    "partials/item-row.html": """\
<tr><td><a href="{{ printf "categories/%s/" (urlize (index .Params.categories 0)) | relURL }}">{{ index .Params.categories 0 }}</a></td>\
<td><a href="{{ printf "sources/%s/" (urlize (index .Params.sources 0)) | relURL }}">{{ index .Params.sources 0 }}</a></td>\
<td><a href="{{ .Params.link }}">{{ .Title }}</a></td>\
<td>{{ range $i, $k := .Params.keywords }}{{ if $i }}, {{ end }}<a href="{{ printf "keywords/%s/" (urlize $k) | relURL }}">{{ $k }}</a>{{ end }}</td>\
<td>{{ .Params.summary }}</td>\
<td><a href="{{ .Params.digest | relURL }}"><time>{{ .Date.Format "2006-01-02 15:04" }}</time></a></td></tr>
""",
    "partials/pager.html": """\
{{ if gt .TotalPages 1 }}<nav>{{ with .Prev }}<a href="{{ .URL }}">前へ</a> {{ end }}{{ .PageNumber }} / {{ .TotalPages }}{{ with .Next }} <a href="{{ .URL }}">次へ</a>{{ end }}</nav>{{ end }}
""",
}


def toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\u{o:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def toml_list(xs) -> str:
    return "[" + ", ".join(toml_str(x) for x in xs) + "]"


def rfc3339(dt: datetime) -> str:
    return dt.isoformat()


def slug(term: str) -> str:
    """Hugo's taxonomy path for a term (urlize: lower case, spaces to '-'), percent-encoded."""
    return quote(re.sub(r"\s+", "-", term.strip()).lower(), safe="-._~")


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def md_text(s: str) -> str:
    """Text for one Markdown table cell: inline markup escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(s.split()))


def md_url(u: str) -> str:
    return "<" + quote(u, safe=":/?#@!$&'()*+,;=%~-._") + ">"


def parse_snapshot(path: Path) -> dict:
    text = path.read_text(encoding="utf-8").lstrip("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "+++":
        raise SystemExit(f"{path}: not a snapshot (no leading +++)")
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "+++":
            fm = tomllib.loads("".join(lines[1:i]))
            fm["body"] = "".join(lines[i + 1 :])
            return fm
    raise SystemExit(f"{path}: the front matter never ends")


def write_section(content: Path, rel: str, title: str, date: datetime | None) -> Path | None:
    p = content / rel / "_index.md"
    if p.exists():
        return None
    p.parent.mkdir(parents=True, exist_ok=True)
    fm = f"+++\ntitle = {toml_str(title)}\n"
    if date is not None:
        fm += f"date = {rfc3339(date)}\n"
    p.write_text(fm + "+++\n", encoding="utf-8")
    return p


def build_key(legacy: bool) -> str:
    return "_build" if legacy else "build"


def convert_snapshot(src: Path, site: Path, legacy: bool) -> list[Path]:
    """Writes one digest and its items into the Hugo site; returns the files written."""
    snap = parse_snapshot(src)
    hour = snap["hour"].astimezone(TZ)
    content = site / "content"
    y, m, d, hm = hour.strftime("%Y"), hour.strftime("%m"), hour.strftime("%d"), hour.strftime("%H%M")
    written = []
    for rel, title, date in (
        (f"digests/{y}", f"{y}年", hour.replace(month=1, day=1, hour=0)),
        (f"digests/{y}/{m}", f"{y}年{m}月", hour.replace(day=1, hour=0)),
        (f"digests/{y}/{m}/{d}", f"{y}年{m}月{d}日", hour.replace(hour=0)),
    ):
        p = write_section(content, rel, title, date)
        if p:
            written.append(p)
    digest_rel = f"digests/{y}/{m}/{d}/{hm}"
    digest_url = f"{digest_rel}/"  # relURL puts baseURL's path before it
    up = "../" * 5  # from /digests/YYYY/MM/DD/HHMM/ back to the site root (baseURL's path)

    rows = [
        "| カテゴリ | サイト | タイトル | 頻出ワード | 要約 | 日時 |",
        "|---|---|---|---|---|---|",
    ]
    item_dir = content / "items" / y / m / d
    item_dir.mkdir(parents=True, exist_ok=True)
    for n, it in enumerate(snap.get("items", [])):
        pub = it["published"].astimezone(TZ)
        kws = it.get("keywords", [])
        title_cell = f"[{md_text(it['title'])}]({md_url(it['link'])})" if it.get("link") else md_text(it["title"])
        kw_cell = ", ".join(f"[{md_text(k)}]({up}keywords/{slug(k)}/)" for k in kws)
        rows.append(
            f"| [{md_text(it['category'])}]({up}categories/{slug(it['category'])}/)"
            f" | [{md_text(it['site'])}]({up}sources/{slug(it['site'])}/)"
            f" | {title_cell} | {kw_cell} | {md_text(it.get('summary', ''))}"
            f" | {pub.strftime('%Y-%m-%d %H:%M')} |"
        )
        fm = [
            "+++",
            f"title = {toml_str(it['title'])}",
            f"date = {rfc3339(it['published'])}",
            f"link = {toml_str(it.get('link', ''))}",
            f"summary = {toml_str(it.get('summary', ''))}",
            f"digest = {toml_str(digest_url)}",
            f"categories = {toml_list([it['category']])}",
            f"sources = {toml_list([it['site']])}",
            f"keywords = {toml_list(kws)}",
            f"[{build_key(legacy)}]",
            'render = "link"',
            'list = "always"',
            "+++",
            it.get("text", ""),
            "",
        ]
        p = item_dir / f"{hm}-{n:02d}.md"
        p.write_text("\n".join(fm), encoding="utf-8")
        written.append(p)

    body = "\n".join(rows) + "\n"
    if snap.get("body", "").strip():
        body += "\n" + snap["body"]
    p = content / f"{digest_rel}.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(
        "+++\n"
        f"title = {toml_str(hour.strftime('%Y-%m-%d %H:00'))}\n"
        f"date = {rfc3339(snap['hour'])}\n"
        f"lastmod = {rfc3339(snap['updated'])}\n"
        "+++\n" + body,
        encoding="utf-8",
    )
    written.append(p)
    return written


def _convert_many(args) -> int:
    paths, site, legacy = args
    return sum(len(convert_snapshot(Path(p), Path(site), legacy)) for p in paths)


def snapshot_files(archive: Path) -> list[Path]:
    pat = re.compile(r"^\d{4}/\d{2}/\d{2}/\d{4}\.md$")
    root = archive / "content"
    return sorted(p for p in root.rglob("*.md") if pat.match(p.relative_to(root).as_posix()))


LEGACY_DEFAULTS = {"baseof.html", "list.html", "single.html", "taxonomy.html", "term.html"}


def write_skeleton(archive: Path, site: Path, legacy: bool) -> None:
    cfg = tomllib.loads((archive / "matome.toml").read_text(encoding="utf-8"))
    site.mkdir(parents=True)
    (site / "hugo.toml").write_text(
        HUGO_TOML.format(base_url=cfg.get("base_url", "/"), title=toml_str(cfg.get("title", "matome"))),
        encoding="utf-8",
    )
    for rel, text in LAYOUTS.items():
        p = site / "layouts" / ("_default/" + rel if legacy and rel in LEGACY_DEFAULTS else rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    content = site / "content"
    write_section(content, "digests", "アーカイブ", None)
    # The items section's own list page is not rendered (it would list every item at once).
    (content / "items").mkdir(parents=True)
    (content / "items" / "_index.md").write_text(
        f'+++\ntitle = "items"\n[{build_key(legacy)}]\nrender = "never"\nlist = "never"\n+++\n', encoding="utf-8"
    )


def convert(archive: Path, site: Path, jobs: int, legacy: bool = False) -> None:
    if site.exists():
        raise SystemExit(f"{site} exists: remove it first")
    files = snapshot_files(archive)
    if not files:
        raise SystemExit(f"{archive}/content has no snapshots")
    write_skeleton(archive, site, legacy)
    # Year/month/day _index.md first (serially), so parallel workers never race on them.
    for f in files:
        hour = parse_hour(f)
        y, m, d = hour.strftime("%Y"), hour.strftime("%m"), hour.strftime("%d")
        c = site / "content"
        write_section(c, f"digests/{y}", f"{y}年", hour.replace(month=1, day=1, hour=0))
        write_section(c, f"digests/{y}/{m}", f"{y}年{m}月", hour.replace(day=1, hour=0))
        write_section(c, f"digests/{y}/{m}/{d}", f"{y}年{m}月{d}日", hour.replace(hour=0))
    chunks = [([str(p) for p in files[i : i + 200]], str(site), legacy) for i in range(0, len(files), 200)]
    if jobs > 1 and len(chunks) > 1:
        with ProcessPoolExecutor(jobs) as ex:
            total = sum(ex.map(_convert_many, chunks))
    else:
        total = sum(map(_convert_many, chunks))
    print(f"{site}: {len(files)} digests, {total} files written", file=sys.stderr)


_HOUR_RE = re.compile(r"^hour\s*=\s*(\S+)\s*$", re.M)


def parse_hour(path: Path) -> datetime:
    with path.open(encoding="utf-8") as f:
        head = f.read(512)
    m = _HOUR_RE.search(head)
    if not m:
        return parse_snapshot(path)["hour"].astimezone(TZ)
    return datetime.fromisoformat(m.group(1)).astimezone(TZ)


def main(argv: list[str]) -> None:
    jobs = int(os.environ.get("HUGO_SITE_JOBS", os.cpu_count() or 1))
    if len(argv) == 4 and argv[0] == "convert" and argv[1] == "--legacy":
        convert(Path(argv[2]), Path(argv[3]), jobs, legacy=True)
    elif len(argv) == 3 and argv[0] == "convert":
        convert(Path(argv[1]), Path(argv[2]), jobs)
    elif len(argv) == 3 and argv[0] == "add":
        site = Path(argv[2])
        for p in convert_snapshot(Path(argv[1]), site, (site / "layouts" / "_default").is_dir()):
            print(p)
    else:
        raise SystemExit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main(sys.argv[1:])
