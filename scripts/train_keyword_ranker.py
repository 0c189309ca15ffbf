#!/usr/bin/env python3
"""Trains the keyword ranker (src/analyze/keyword_ranker.json) on the tuning parts' features.

Usage: train_keyword_ranker.py FEATURES.jsonl MODEL.json

FEATURES.jsonl is written by the quality test (`MATOME_RANKER_FEATURES=... cargo test --test it
quality::keyword_ranker_features_of_the_tuning_parts`): one line per candidate of each tuning
item, its features, whether it is a gold tag and whether it is acceptable. The held-out part is
never in it. Only the Japanese items are read (the model re-ranks only those); a candidate is
labelled 1 when it is a gold tag.

Before writing the model it prints a leave-one-part-out estimate: for each tuning part, a model
trained on the other parts orders that part's candidates, the top 3 are taken as matome takes
them (skipping a candidate inside or around one already taken) and precision@3 and recall@3 are
compared with the hand-set order. The selection is an approximation of `keywords_of` (it does
not run the findability check), so the figures are an estimate; the quality test gives the
real ones.
"""

import collections
import json
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

PARAMS = dict(
    max_iter=60,
    learning_rate=0.15,
    max_leaf_nodes=8,
    min_samples_leaf=30,
    early_stopping=False,
    random_state=0,
)
RANK = 1  # the feature holding the hand-set rank


def load(path):
    """The Japanese items' candidates (English items keep the hand-set order), by item."""
    items = collections.OrderedDict()
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        if not r["english"]:
            items.setdefault((r["part"], r["item"]), []).append(r)
    return items


def overlaps(a, b):
    a, b = a.lower(), b.lower()
    if a in b or b in a:
        return True
    if " " not in a or " " not in b:
        return bool(set(a.split(" ")) & set(b.split(" ")))
    return False


def top3(cands, scores):
    order = sorted(range(len(cands)), key=lambda i: (-scores[i], i))
    chosen = []
    for i in order:
        if len(chosen) == 3:
            break
        if not any(overlaps(cands[i]["display"], cands[j]["display"]) for j in chosen):
            chosen.append(i)
    return [cands[i] for i in chosen]


def measure(items, score):
    s = collections.Counter()
    for cands in items:
        shown = top3(cands, score(cands))
        s["right"] += sum(c["gold"] or c["acceptable"] for c in shown)
        s["gold"] += sum(c["gold"] for c in shown)
        s["shown"] += len(shown)
    return s


def fit(items):
    rows = [c for cands in items for c in cands]
    x = np.array([c["x"] for c in rows])
    y = np.array([c["gold"] for c in rows])
    return HistGradientBoostingClassifier(**PARAMS).fit(x, y)


def model_score(model):
    return lambda cands: list(model.decision_function(np.array([c["x"] for c in cands])))


def hand_score(cands):
    return [-c["x"][RANK] for c in cands]


def export(model, n_features):
    trees = []
    for (predictor,) in model._predictors:
        nodes = []
        for node in predictor.nodes:
            if node["is_leaf"]:
                nodes.append([-1, 0.0, 0, 0, float(node["value"])])
            else:
                nodes.append(
                    [
                        int(node["feature_idx"]),
                        float(node["num_threshold"]),
                        int(node["left"]),
                        int(node["right"]),
                        0.0,
                    ]
                )
        trees.append(nodes)
    baseline = float(np.ravel(model._baseline_prediction)[0])
    return {"features": n_features, "baseline": baseline, "trees": trees}


def evaluate(exported, x):
    """The exported model's raw score, walked as src/analyze/ranker.rs walks it."""
    total = exported["baseline"]
    for tree in exported["trees"]:
        i = 0
        while tree[i][0] >= 0:
            feature, threshold, left, right, _ = tree[i]
            i = left if x[feature] <= threshold else right
        total += tree[i][4]
    return total


def check(exported, model, rows):
    """The exported trees give scikit-learn's scores (so the file says what was trained)."""
    x = np.array([c["x"] for c in rows])
    want = model.decision_function(x)
    got = np.array([evaluate(exported, r) for r in x])
    worst = float(np.max(np.abs(want - got)))
    assert worst < 1e-9, f"the exported model differs from the trained one by {worst}"


def main():
    features, out = sys.argv[1], sys.argv[2]
    items = load(features)
    parts = sorted({p for p, _ in items})
    total_hand, total_model = collections.Counter(), collections.Counter()
    for held in parts:
        train = [c for (p, _), c in items.items() if p != held]
        test = [c for (p, _), c in items.items() if p == held]
        total_hand += measure(test, hand_score)
        total_model += measure(test, model_score(fit(train)))
    h, m = total_hand, total_model
    print(
        f"leave-one-part-out estimate over {len(parts)} tuning parts' Japanese items "
        f"(approximate selection): right tags {h['right']} -> {m['right']}, gold tags "
        f"{h['gold']} -> {m['gold']}, of {h['shown']} / {m['shown']} shown"
    )
    model = fit(list(items.values()))
    n_features = len(next(iter(items.values()))[0]["x"])
    exported = export(model, n_features)
    check(exported, model, [c for cands in items.values() for c in cands])
    with open(out, "w", encoding="utf-8") as f:
        json.dump(exported, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
