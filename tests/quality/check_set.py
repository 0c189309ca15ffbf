#!/usr/bin/env python3
"""Checks a keyword quality set (tests/quality/keywords*.toml) against its labelling rules.

Usage: python3 tests/quality/check_set.py tests/quality/keywords.toml [more files]

It looks only at the data, never at what matome predicts, so it can run on the held-out part
without anyone seeing its items. For every item it checks that:
- category, site and title are present and `keywords` has 2-4 tags;
- every gold and acceptable tag occurs literally in title + description with HTML tags removed
  and entities decoded (English items case-insensitively; English tags are written lower-case);
- no tag is the item's category or site, a bare number, or repeated (within gold, or in both
  gold and acceptable);
- an English item's title is ASCII (the quality test tells the languages apart by that), and a
  Japanese item's title is not.
It prints one line per problem and a summary per file (items per language, distinct sites), and
exits non-zero when there was a problem.
"""

import html
import re
import sys
import tomllib

TAG = re.compile(r"<[^>]*>")
NUMBER = re.compile(r"^[\d.,%$¥€£+\-\s]+$")


def plain(s: str) -> str:
    """Description text as a reader sees it: tags removed, entities decoded, spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(TAG.sub(" ", s)))


def english(item) -> bool:
    """The quality test's language rule: an ASCII title is English."""
    return item["title"].isascii()


def check_item(n: int, item) -> list[str]:
    where = f"item {n} ({item.get('title', '?')[:50]!r})"
    problems = []
    for key in ("category", "site", "title", "description", "keywords"):
        if key not in item:
            problems.append(f"{where}: no {key}")
    if problems:
        return problems
    gold, ok = item["keywords"], item.get("acceptable", [])
    if not 2 <= len(gold) <= 4:
        problems.append(f"{where}: {len(gold)} gold tags (want 2-4)")
    en = english(item)
    text = item["title"] + " \n " + plain(item["description"])
    haystack = text.lower() if en else text
    for tag in gold + ok:
        needle = tag.lower() if en else tag
        if en and tag != tag.lower():
            problems.append(f"{where}: English tag {tag!r} is not lower-case")
        if needle not in haystack:
            problems.append(f"{where}: tag {tag!r} does not occur in the text")
        if tag.lower() in (item["category"].lower(), item["site"].lower()):
            problems.append(f"{where}: tag {tag!r} is the category or site")
        if NUMBER.match(tag):
            problems.append(f"{where}: tag {tag!r} is a bare number")
        if tag != tag.strip() or not tag:
            problems.append(f"{where}: tag {tag!r} has stray spaces")
    for tags, what in ((gold, "gold"), (gold + ok, "gold+acceptable")):
        lowered = [t.lower() for t in tags]
        if len(set(lowered)) != len(lowered):
            problems.append(f"{where}: a tag is repeated in {what}")
    if not en and item["title"].isascii():
        problems.append(f"{where}: Japanese item with an ASCII title")
    return problems


def main(paths: list[str]) -> int:
    failed = False
    for path in paths:
        with open(path, "rb") as f:
            items = tomllib.load(f)["items"]
        problems = [p for n, it in enumerate(items, 1) for p in check_item(n, it)]
        for p in problems:
            print(f"{path}: {p}")
        en = [it for it in items if english(it)]
        ja = [it for it in items if not english(it)]
        print(
            f"{path}: {len(items)} items ({len(ja)} Japanese, {len(en)} English), "
            f"{len({it['site'] for it in ja})} Japanese sites, "
            f"{len({it['site'] for it in en})} English sites, {len(problems)} problems"
        )
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["tests/quality/keywords.toml"]))
