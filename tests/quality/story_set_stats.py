#!/usr/bin/env python3
"""Check and summarise the labelled story sets (issue 24).

Reads tests/quality/stories.toml (development set) and
tests/quality/stories-heldout.toml (held-out set), those of them that exist, or
the files given on the command line, checks that every item is well formed, and prints per file:
items, items per language, stories, multi-item stories, items in multi-item
stories, cross-language stories, distinct sites and the number of same-story
pairs (same-language and cross-language).

It prints counts only, never an item, so running it on the held-out set does
not show its contents. Standard library only (Python 3.11+ for tomllib).
Exit status 1 if a file does not parse or an item is malformed.
"""

import collections
import datetime
import pathlib
import sys
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_FILES = [HERE / "stories.toml", HERE / "stories-heldout.toml"]
FIELDS = ("feed", "site", "category", "lang", "published", "title", "link", "description", "story")
JST = datetime.timedelta(hours=9)


def problems(items):
    """Yield a message for each malformed item (by position, not by content)."""
    site_feed = {}
    for n, it in enumerate(items, 1):
        missing = [f for f in FIELDS if f not in it]
        if missing:
            yield f"item {n}: missing {', '.join(missing)}"
            continue
        if it["lang"] not in ("ja", "en"):
            yield f"item {n}: lang must be \"ja\" or \"en\""
        published = it["published"]
        if not isinstance(published, datetime.datetime) or published.tzinfo is None:
            yield f"item {n}: published must be a date-time with an offset"
        elif (published.utcoffset() == JST) != (it["lang"] == "ja"):
            yield f"item {n}: Japanese items are published in +09:00, English ones in UTC or a US zone"
        for f in ("feed", "site", "category", "title", "link", "story"):
            if not isinstance(it[f], str) or not it[f].strip():
                yield f"item {n}: {f} must be a non-empty string"
        if not isinstance(it["description"], str):
            yield f"item {n}: description must be a string (may be empty)"
        if site_feed.setdefault(it["site"], it["feed"]) != it["feed"]:
            yield f"item {n}: site has two feed URLs"


def pairs(n):
    return n * (n - 1) // 2


def span(group):
    times = [it["published"] for it in group]
    return max(times) - min(times)


def stats(items):
    stories = collections.defaultdict(list)
    for it in items:
        stories[it["story"]].append(it)
    multi = [group for group in stories.values() if len(group) > 1]
    same_lang = cross_lang = 0
    for group in multi:
        per_lang = collections.Counter(it["lang"] for it in group)
        same = sum(pairs(c) for c in per_lang.values())
        same_lang += same
        cross_lang += pairs(len(group)) - same
    days = sorted({it["published"].date() for it in items})
    spanning = sum(1 for g in multi if span(g) > datetime.timedelta(hours=24))
    return [
        ("items", len(items)),
        ("items per language", ", ".join(f"{k} {v}" for k, v in sorted(collections.Counter(it["lang"] for it in items).items()))),
        ("stories", len(stories)),
        ("multi-item stories", len(multi)),
        ("items in multi-item stories", sum(len(g) for g in multi)),
        ("story sizes (size: stories)", ", ".join(f"{k}: {v}" for k, v in sorted(collections.Counter(len(g) for g in multi).items()))),
        ("multi-item stories spanning over 24 hours", spanning),
        ("cross-language stories", sum(1 for g in multi if len({it["lang"] for it in g}) > 1)),
        ("distinct sites", len({it["site"] for it in items})),
        ("days (local dates)", f"{days[0]} .. {days[-1]} ({len(days)})" if days else "-"),
        ("same-story pairs", same_lang + cross_lang),
        ("  same-language pairs", same_lang),
        ("  cross-language pairs", cross_lang),
    ]


def main(argv):
    files = [pathlib.Path(a) for a in argv] or [p for p in DEFAULT_FILES if p.exists()]
    ok = bool(files)
    if not files:
        print("no story set found")
    for path in files:
        print(f"== {path.name}")
        try:
            with open(path, "rb") as f:
                items = tomllib.load(f).get("items", [])
        except (OSError, tomllib.TOMLDecodeError) as e:
            print(f"  error: {e}")
            ok = False
            continue
        found = list(problems(items))
        for p in found:
            print(f"  error: {p}")
        if found:
            ok = False
            continue
        for name, value in stats(items):
            print(f"  {name:<44} {value}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
