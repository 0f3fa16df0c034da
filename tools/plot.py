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
      bank with k words of one part of the warp (k wavefronts) shows k
      colours; a line between parts served on their own
      (from `bankfree model FILTER --lanes --format json`, or the worst
      request of `bankfree ways EXPR --format json`: the picture its table
      prints)
  tools/plot.py sweep SWEEP.json OUTDIR
      one chart a family and type: rate against the bytes one run reads and
      writes, both axes log; a line a variant, the vendor's black, ceilings
      grey dashed, a dotted line at the L2 size, and the best variant's
      point circled in red where the summary has it behind the vendor
      (from `bankfree bench --sizes sweep --format json`)
  tools/plot.py all DIR
      bench, lanes and sweep from whichever of DIR/bench.json, DIR/lanes.json
      and DIR/sweep.json there are, into DIR (a GPU's folder of docs/results:
      tools/plot.py all docs/results/h100; the model's pictures, the same
      on every GPU: tools/plot.py all docs/results)
"""
import json
import os
import re
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import LogLocator, NullFormatter  # noqa: E402


def file_name(*parts):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts)) + ".png"


def caption(meta):
    keys = ("device", "cuda", "date", "revision", "command")
    return "\n".join(f"{k}: {meta[k]}" for k in keys if k in meta)


def is_ceiling(r):
    return "ceiling" in r["variant"]


def is_vendor(r):
    return r.get("vs_vendor") == 1.0 and r.get("vs_naive") is None


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
        vendor = is_vendor(r) and case + ("vendor",) not in fam["rows"]  # a case's first
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
    """One picture a site: its worst request, a lane a row, a bank a column;
    in each part of the warp (lanes served together: the rows' part) the
    k-th distinct word of a bank gets the k-th colour, as `bankfree ways`
    letters them."""
    sites = {}
    for r in rows:
        key = tuple(r.get(k, "") for k in ("family", "type", "size", "variant", "site"))
        sites.setdefault(key, []).append(r)
    banks, bank_bytes = rules_of(meta)
    written = []
    for (family, typ, size, variant, site), rs in sites.items():
        grid = [[None] * banks for _ in range(32)]
        words = {}  # (part, bank) -> its distinct words, in lane order
        for r in rs:
            if not r["active"]:
                continue
            first_word = r["address"] // bank_bytes
            for k in range(r["banks"]):
                bank = (r["bank"] + k) % banks
                seen = words.setdefault((r.get("part", 0), bank), [])
                if first_word + k not in seen:
                    seen.append(first_word + k)
                grid[r["lane"]][bank] = seen.index(first_word + k)
        fig, ax = plt.subplots(figsize=(6, 6))
        cmap = plt.get_cmap("tab20")
        for lane in range(32):
            for bank in range(banks):
                if grid[lane][bank] is not None:
                    ax.add_patch(plt.Rectangle((bank, lane), 1, 1, color=cmap(grid[lane][bank] % 20)))
        for a, b in zip(rs, rs[1:]):  # a part of its own from b on
            if a.get("part", 0) != b.get("part", 0):
                ax.axhline(b["lane"], color="black", linewidth=0.8)
        ax.set_xlim(0, banks)
        ax.set_ylim(32, 0)
        ax.set_xticks(range(0, banks + 1, 4))
        ax.set_yticks(range(0, 33, 4))
        ax.set_xlabel("bank")
        ax.set_ylabel("lane")
        ax.grid(True, linewidth=0.3)
        worst = rs[0]["worst"]
        most = max((len(w) for w in words.values()), default=0)
        head = f"{family}/{variant} {typ} {size}\n" if family else ""
        ax.set_title(f"{head}{site}: {rs[0]['op']} {rs[0]['bytes']} B, "
                     f"worst request {worst} wavefront{'s' if worst != 1 else ''}, "
                     f"up to {most} words a bank", fontsize=8)
        fig.text(0.01, 0.01, caption(meta), fontsize=5, va="bottom")
        fig.subplots_adjust(bottom=0.15)
        path = os.path.join(out, file_name("lanes", *(p for p in (family, variant, typ, size, site) if p)))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def rules_of(meta):
    """The banks and their width from the model's meta line ("sm_90 rules: 32
    banks of 4 B; ..."): (32, 4) where it says none."""
    m = re.search(r"(\d+) banks of (\d+) B", meta.get("model", ""))
    return (int(m.group(1)), int(m.group(2))) if m else (32, 4)


def l2_size(meta):
    """The L2 size in bytes and as its text ("52") from meta's device, as
    "NN MB L2" (MB = 1e6 bytes); (None, None) where it says none."""
    m = re.search(r"([0-9.]+) MB L2", meta.get("device", ""))
    return (float(m.group(1)) * 1e6, m.group(1)) if m else (None, None)


def bytes_text(x, _pos=None):
    """1e6 -> "1 MB", 2e10 -> "20 GB": a log axis's ticks."""
    for scale, name in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if x >= scale:
            return f"{x / scale:g} {name}"
    return f"{x:g} B"


def log_axis(axis, text, subs):
    """Ticks at subs (1, 2, 5: 1, 2, 5, 10, 20...), written by text, no minor
    labels."""
    axis.set_major_locator(LogLocator(subs=subs))
    axis.set_major_formatter(text)
    axis.set_minor_formatter(NullFormatter())


def sweep_lines(rows):
    """(family, type) -> {"lines": {key: [row]}, "units": [unit]}, where a
    key is "vendor" or a variant's name, the rows sorted by data_bytes."""
    charts, vendors = {}, set()
    for r in rows:
        if "data_bytes" not in r:
            raise ValueError("its rows have no data_bytes (a bankfree older than the sweep's "
                             "x axis?)")
        if r["data_bytes"] is None or not r.get("rate"):
            continue
        chart = charts.setdefault((r["family"], r["type"]), {"lines": {}, "units": []})
        case = (r["family"], r["type"], r["size"])
        key = "vendor" if is_vendor(r) and case not in vendors else r["variant"]  # a case's first
        if key == "vendor":
            vendors.add(case)
        chart["lines"].setdefault(key, []).append(r)
        if r["unit"] not in chart["units"]:
            chart["units"].append(r["unit"])
    for chart in charts.values():
        for rs in chart["lines"].values():
            rs.sort(key=lambda r: r["data_bytes"])
    return charts


def sweep_line(ax, key, rs, colour_of):
    """One variant's line: the vendor's black, a ceiling grey dashed, any
    other the colour its name has on every chart."""
    xs, ys = [r["data_bytes"] for r in rs], [r["rate"] for r in rs]
    label = textwrap.fill(" / ".join(dict.fromkeys(r["variant"] for r in rs)), 30)
    if key == "vendor":
        ax.plot(xs, ys, "s-", color="black", markersize=4, label=label, zorder=3)
    elif is_ceiling(rs[0]):
        ax.plot(xs, ys, "^--", color="grey", markersize=4, linewidth=1, label=label)
    else:
        k = colour_of[key]
        ax.plot(xs, ys, "os^vDP"[k // 10 % 6] + "-", color=plt.get_cmap("tab10")(k % 10),
                markersize=4, label=label)


def sweep(rows, meta, out, summary):
    """One chart a family and type: rate against data_bytes, both log."""
    charts = sweep_lines(rows)
    colour_of = {}
    for chart in charts.values():
        for key, rs in chart["lines"].items():
            if key != "vendor" and not is_ceiling(rs[0]):
                colour_of.setdefault(key, len(colour_of))
    behind = [s for s in summary if "vendor" in (s.get("behind") or "")]
    l2, l2_text = l2_size(meta)
    written = []
    for (family, typ), chart in charts.items():
        fig, ax = plt.subplots(figsize=(9, 5.2))
        for key, rs in chart["lines"].items():
            sweep_line(ax, key, rs, colour_of)
        circled = [r for s in behind if (s["family"], s["type"]) == (family, typ)
                   for r in chart["lines"].get(s["best"], []) if r["size"] == s["size"]]
        if circled:
            ax.scatter([r["data_bytes"] for r in circled], [r["rate"] for r in circled],
                       s=160, facecolors="none", edgecolors="red", linewidths=1.5,
                       label="best, behind the vendor", zorder=4)
        if l2 is not None:
            ax.axvline(l2, linestyle=":", color="black", linewidth=1, label=f"L2 ({l2_text} MB)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        lo, hi = ax.get_xlim()
        log_axis(ax.xaxis, bytes_text, (1,) if hi / lo > 1e4 else (1, 2, 5))  # room to read
        lo, hi = ax.get_ylim()
        log_axis(ax.yaxis, lambda y, _pos: f"{y:,g}", (1,) if hi / lo > 1e4 else (1, 2, 3, 5))
        ax.tick_params(labelsize=8)
        ax.grid(True, which="both", linewidth=0.3)
        ax.set_xlabel("bytes one run reads and writes")
        ax.set_ylabel(f"rate ({', '.join(chart['units'])})")
        ax.set_title(f"{family} {typ}: rate against size")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.text(0.01, 0.01, caption(meta), fontsize=5, va="bottom")
        fig.subplots_adjust(bottom=0.25, right=0.7)
        path = os.path.join(out, file_name("sweep", family, typ))
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
        if kind == "sweep":
            return sweep(rows, meta, out, doc.get("summary") or [])
        if kind == "lanes" and "lanes" in doc:  # bankfree ways: its worst request's lanes
            rows = doc["lanes"]
        return (bench if kind == "bench" else lanes)(rows, meta, out)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write(f"plot.py: {path}: {e}\n")
        return None


def main(argv):
    if len(argv) == 3 and argv[1] == "all":
        jobs = [(k, os.path.join(argv[2], k + ".json"), argv[2]) for k in ("bench", "lanes", "sweep")]
        jobs = [job for job in jobs if os.path.exists(job[1])]
        if not jobs:
            sys.stderr.write(f"plot.py: {argv[2]}: no bench.json, lanes.json or sweep.json\n")
            return 2
    elif len(argv) == 4 and argv[1] in ("bench", "lanes", "sweep"):
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
