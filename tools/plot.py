#!/usr/bin/env python3
"""Pictures from bankfree's JSON. Not needed to build or test bankfree; needs
matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib; else
pip install matplotlib).

  tools/plot.py bench BENCH.json OUTDIR
      one bar chart a family: a cluster a type and size, a bar a variant at
      its fraction of the measured ceiling (the dashed line at 1), the
      vendor library as a black line over its cluster
      (from `bankfree bench --format json`)
  tools/plot.py lanes MODEL.json OUTDIR
      one lane-to-bank picture an access site: the site's worst request,
      lanes down, banks across; lanes on one word share a colour, and a
      bank with k words (k wavefronts) shows k colours
      (from `bankfree model FILTER --lanes --format json`)
  tools/plot.py all DIR
      both, from DIR/bench.json and DIR/lanes.json, into DIR
      (docs/results: tools/plot.py all docs/results)
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def file_name(*parts):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts)) + ".png"


def caption(meta):
    keys = ("device", "cuda", "date", "revision", "command")
    return "\n".join(f"{k}: {meta[k]}" for k in keys if k in meta)


def is_ceiling(r):
    return "ceiling" in r["variant"]


def bench(rows, meta, out):
    """One chart a family: a cluster of bars a type and size, a bar a
    variant at its fraction of the ceiling; the vendor's as a black line over
    its cluster; the ceiling is 1."""
    families = {}
    for r in rows:
        if r.get("of_ceiling") is None:
            continue
        fam = families.setdefault(r["family"], {"cases": [], "variants": [], "rows": {}})
        case = (r["type"], r["size"])
        if case not in fam["cases"]:
            fam["cases"].append(case)
        vendor = r.get("vs_vendor") == 1.0 and r.get("vs_naive") is None
        if not is_ceiling(r) and not vendor and r["variant"] not in fam["variants"]:
            fam["variants"].append(r["variant"])
        fam["rows"][case + (r["variant"],)] = r
        if vendor:
            fam["rows"][case + ("vendor",)] = r
    written = []
    colours = plt.get_cmap("tab10")
    for family, fam in families.items():
        cases, variants = fam["cases"], fam["variants"]
        width = 0.8 / max(len(variants), 1)
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(cases) + 2), 4.8))
        for k, v in enumerate(variants):
            xs = [i + (k - (len(variants) - 1) / 2) * width for i in range(len(cases))]
            ys = [fam["rows"].get(c + (v,), {}).get("of_ceiling") or 0 for c in cases]
            ax.bar(xs, ys, width, label=v, color=colours(k % 10))
        for i, c in enumerate(cases):
            vendor = fam["rows"].get(c + ("vendor",))
            if vendor is not None:
                ax.hlines(vendor["of_ceiling"], i - 0.45, i + 0.45, colors="black",
                          label=vendor["variant"] if i == 0 else None)
        ax.axhline(1.0, linestyle="--", color="grey", linewidth=0.8, label="ceiling")
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels([f"{t}\n{s}" for t, s in cases], fontsize=7,
                           rotation=30 if len(cases) > 6 else 0)
        unit = next(iter(fam["rows"].values()))["unit"]
        ax.set_ylabel(f"fraction of its ceiling ({unit})")
        ax.set_title(f"{family}: each variant against its ceiling")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.text(0.01, 0.01, caption(meta), fontsize=5, va="bottom")
        fig.subplots_adjust(bottom=0.3, right=0.78)
        path = os.path.join(out, file_name("bench", family))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def lanes(rows, meta, out):
    sites = {}
    for r in rows:
        key = (r["family"], r["type"], r["size"], r["variant"], r["site"])
        sites.setdefault(key, []).append(r)
    written = []
    for (family, typ, size, variant, site), rs in sites.items():
        grid = [[None] * 32 for _ in range(32)]
        words = {}  # bank -> its distinct words, in lane order
        for r in rs:
            if not r["active"]:
                continue
            first_word = r["address"] // 4
            for k in range(r["banks"]):
                bank = (r["bank"] + k) % 32
                seen = words.setdefault(bank, [])
                if first_word + k not in seen:
                    seen.append(first_word + k)
                grid[r["lane"]][bank] = seen.index(first_word + k)
        fig, ax = plt.subplots(figsize=(6, 6))
        cmap = plt.get_cmap("tab20")
        for lane in range(32):
            for bank in range(32):
                if grid[lane][bank] is not None:
                    ax.add_patch(plt.Rectangle((bank, lane), 1, 1, color=cmap(grid[lane][bank] % 20)))
        ax.set_xlim(0, 32)
        ax.set_ylim(32, 0)
        ax.set_xticks(range(0, 33, 4))
        ax.set_yticks(range(0, 33, 4))
        ax.set_xlabel("bank")
        ax.set_ylabel("lane")
        ax.grid(True, linewidth=0.3)
        worst = rs[0]["worst"]
        most = max((len(w) for w in words.values()), default=0)
        ax.set_title(f"{family}/{variant} {typ} {size}\n{site}: {rs[0]['op']} {rs[0]['bytes']} B, "
                     f"worst request {worst} wavefront{'s' if worst != 1 else ''}, "
                     f"up to {most} words a bank", fontsize=8)
        fig.text(0.01, 0.01, caption(meta), fontsize=5, va="bottom")
        fig.subplots_adjust(bottom=0.15)
        path = os.path.join(out, file_name("lanes", family, variant, typ, size, site))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def draw(kind, path, out):
    try:
        with open(path) as f:
            doc = json.load(f)
        rows, meta = doc["rows"], doc.get("meta", {})
        os.makedirs(out, exist_ok=True)
        return (bench if kind == "bench" else lanes)(rows, meta, out)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write(f"plot.py: {path}: {e}\n")
        return None


def main(argv):
    if len(argv) == 3 and argv[1] == "all":
        jobs = [(k, os.path.join(argv[2], k + ".json"), argv[2]) for k in ("bench", "lanes")]
    elif len(argv) == 4 and argv[1] in ("bench", "lanes"):
        jobs = [(argv[1], argv[2], argv[3])]
    else:
        sys.stderr.write(__doc__)
        return 2
    written = []
    for job in jobs:
        paths = draw(*job)
        if paths is None:
            return 2
        written += paths
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
