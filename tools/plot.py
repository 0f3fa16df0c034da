#!/usr/bin/env python3
"""Pictures from bankfree's JSON. Not needed to build or test bankfree; needs
matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib; else
pip install matplotlib).

  tools/plot.py bench BENCH.json OUTDIR
      one bar chart a family and size (the first type of each): each
      variant's rate, the ceiling and the vendor library as lines
      (from `bankfree bench --format json`)
  tools/plot.py lanes MODEL.json OUTDIR
      one lane-to-bank picture an access site: the site's worst request,
      lanes down, banks across; lanes on one word share a colour, and a
      bank with k words (k wavefronts) shows k colours
      (from `bankfree model FILTER --lanes --format json`)
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


def bench(rows, meta, out):
    groups = {}
    for r in rows:
        key = (r["family"], r["size"])
        first_type = groups.setdefault(key, {"type": r["type"], "rows": []})["type"]
        if r["type"] == first_type and r.get("rate") is not None:
            groups[key]["rows"].append(r)
    written = []
    for (family, size), g in groups.items():
        rs = g["rows"]
        ceiling = [r for r in rs if "ceiling" in r["variant"] or r["variant"].startswith("copy")]
        vendor = [r for r in rs if r.get("vs_vendor") == 1.0 and r not in ceiling]
        bars = [r for r in rs if r not in ceiling and r not in vendor]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        ax.bar([r["variant"] for r in bars], [r["rate"] for r in bars], color="#4477aa")
        for r, style in [(c, "--") for c in ceiling[:1]] + [(v, ":") for v in vendor[:1]]:
            ax.axhline(r["rate"], linestyle=style, color="black")
            ax.text(len(bars) - 0.5, r["rate"], f" {r['variant']}", va="bottom", ha="right")
        unit = rs[0].get("unit", "") if rs else ""
        ax.set_ylabel(unit)
        ax.set_title(f"{family} {g['type']} {size}")
        fig.text(0.01, 0.01, caption(meta), fontsize=6, va="bottom")
        fig.subplots_adjust(bottom=0.3)
        path = os.path.join(out, file_name("bench", family, g["type"], size))
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


def main(argv):
    if len(argv) != 4 or argv[1] not in ("bench", "lanes"):
        sys.stderr.write(__doc__)
        return 2
    try:
        with open(argv[2]) as f:
            doc = json.load(f)
        rows, meta = doc["rows"], doc.get("meta", {})
        os.makedirs(argv[3], exist_ok=True)
        written = (bench if argv[1] == "bench" else lanes)(rows, meta, argv[3])
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write(f"plot.py: {argv[2]}: {e}\n")
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
