"""PNG plots of the bench results (matplotlib, Agg backend)."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TITLES = {"ds_cnn": "DS-CNN", "mobilenet_v1": "MobileNetV1", "resnet8": "ResNet-8", "autoencoder": "AE",
          "add": "add", "kws_upstream": "KWS upstream"}
COLORS = {"cv32e40p": "#1f77b4", "cv32e40p-pulp": "#9467bd", "cortex-m55": "#ff7f0e",
          "cortex-m33": "#8c564b", "published": "#2ca02c"}


def label(r):
    v = r["variant"].replace(" (upstream)", "")
    return f"{TITLES.get(r['model'], r['model'])}\n{v}"


def programs(rows):
    seen = []
    for r in rows:
        k = (r["model"], r["variant"])
        if k not in seen:
            seen.append(k)
    return seen


def cycles_plot(path, rows, pub):
    progs = programs(rows)
    targets = [t for t in ("cv32e40p", "cv32e40p-pulp", "cortex-m55", "cortex-m33")
               if any(r["target"] == t for r in rows)]
    by = {(r["model"], r["variant"], r["target"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(max(7, 1.3 * len(progs) + 2), 5))
    width = 0.8 / (len(targets) + 1)
    for j, t in enumerate(targets + ["published"]):
        xs, ys = [], []
        for i, (m, v) in enumerate(progs):
            x = i + (j - len(targets) / 2) * width
            if t == "published":
                p = pub.get((m, "cortex-m55")) if v == "int8" else None
                if m == "add":
                    p = pub.get(("add", "cv32e40p"))
                if p and p.get("cycles"):
                    xs.append(x)
                    ys.append(float(p["cycles"]))
                continue
            r = by.get((m, v, t))
            if r is None:
                continue
            if r["status"] == "ok":
                xs.append(x)
                # the seed's add baseline is a whole run (reset to exit): compare like with like
                ys.append(r["total"] if m == "add" else r["execute"])
            else:
                ax.text(x, 1.5e3, "n/a", rotation=90, ha="center", va="bottom", fontsize=7, color=COLORS[t])
        name = {"cv32e40p": "ours, CV32E40P cycles (etmcu-sim)",
                "cv32e40p-pulp": "ours, CV32E40P + Xpulp cycles (etmcu-sim; int8 only)",
                "cortex-m55": "ours, Cortex-M55 instructions (QEMU)",
                "cortex-m33": "ours, Cortex-M33 instructions (QEMU; int8 only)",
                "published": "published: ET Cortex-M backend int8 M55 cycles; add: seed CV32E40P cycles (whole run)"}[t]
        if t == "published" and not xs:
            continue
        ax.bar(xs, ys, width, label=name, color=COLORS[t])
    ax.set_yscale("log")
    ax.set_ylim(bottom=1e3)
    ax.set_xticks(range(len(progs)))
    ax.set_xticklabels([label({"model": m, "variant": v}) + ("\n(whole run)" if m == "add" else "")
                        for m, v in progs], fontsize=8)
    ax.set_ylabel("per inference (log)")
    ax.set_title("Cycles (CV32E40P) / instructions (Cortex-M55) per inference, execute phase; add: whole run "
                 "(n/a = unavailable, see results.md)", fontsize=10)
    fig.tight_layout()
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3)
    ax.grid(axis="y", which="major", alpha=0.3)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def memory_plot(path, rows, pub):
    zoo = [m for m in ("ds_cnn", "mobilenet_v1", "resnet8", "autoencoder") if any(r["model"] == m for r in rows)]
    if not zoo:
        zoo = sorted({r["model"] for r in rows})
    series = [("int8", "cortex-m55"), ("fp32", "cortex-m55"), ("int8", "cv32e40p"), ("fp32", "cv32e40p"),
              ("int8", "cv32e40p-pulp")]
    series = [s for s in series if any(r["variant"] == s[0] and r["target"] == s[1] for r in rows)]
    by = {(r["model"], r["variant"], r["target"]): r for r in rows}
    fig, axes = plt.subplots(1, 2, figsize=(15, 5))
    width = 0.8 / (len(series) + 1)
    all_colors = {("int8", "cortex-m55"): "#ff7f0e", ("fp32", "cortex-m55"): "#ffbb78",
                  ("int8", "cv32e40p"): "#1f77b4", ("fp32", "cv32e40p"): "#aec7e8",
                  ("int8", "cv32e40p-pulp"): "#9467bd"}
    colors = [all_colors[s] for s in series]
    for ax, what in zip(axes, ("ram", "flash")):
        for j, s in enumerate(series + [("published", "")]):
            for i, m in enumerate(zoo):
                x = i + (j - len(series) / 2) * width
                if s[0] == "published":
                    p = pub.get((m, "cortex-m55"))
                    if not p:
                        continue
                    if what == "ram":
                        ax.bar(x, float(p["peak_ram_kib"]), width, color="#2ca02c")
                    else:
                        ax.bar(x, float(p["code_kib"]), width, color="#2ca02c")
                        ax.bar(x, float(p["model_flash_kib"]), width, bottom=float(p["code_kib"]), color="#98df8a",
                               hatch="//")
                    continue
                r = by.get((m, s[0], s[1]))
                c = colors[j % len(colors)]
                if r is None or r["status"] != "ok":
                    ax.text(x, 1.1, "n/a", rotation=90, ha="center", va="bottom", fontsize=7, color="black")
                    continue
                if what == "ram":
                    ax.bar(x, r["ram_peak"] / 1024, width, color=c)
                else:
                    ax.bar(x, r["flash_code"] / 1024, width, color=c)
                    ax.bar(x, r["flash_model"] / 1024, width, bottom=r["flash_code"] / 1024, color=c, alpha=0.45,
                           hatch="//")
        handles = [plt.Rectangle((0, 0), 1, 1, color=colors[j % len(colors)]) for j in range(len(series))]
        names = [f"ours {v} {t}" for v, t in series]
        handles.append(plt.Rectangle((0, 0), 1, 1, color="#2ca02c"))
        names.append("published (ET Cortex-M backend, int8, M55)")
        if what == "flash":
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch="//"))
            names.append("hatched: model (.pte / weights) on top of code")
        if what == "flash":
            ax.legend(handles, names, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
        ax.set_xticks(range(len(zoo)))
        ax.set_xticklabels([TITLES.get(m, m) for m in zoo])
        ax.set_yscale("log")
        ax.set_ylim(bottom=1)
        ax.set_ylabel("KiB (log)")
        ax.set_title("Peak RAM (planned+method+temp+.data+.bss+stack)" if what == "ram"
                     else "Flash: code (solid) + model (hatched)")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("n/a = unavailable (see results.md for the error)", fontsize=8, y=0.02)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def per_op_plot(path, per_op, group):
    panels = [(t, title) for t, title in (("cv32e40p", "CV32E40P cycles (etmcu-sim profile)"),
                                           ("cv32e40p-pulp", "CV32E40P + Xpulp cycles (etmcu-sim profile)"),
                                           ("cortex-m55", "Cortex-M55 instructions (QEMU plugin)"))
              if any(isinstance(d.get(t), dict) for d in per_op.values())]
    keys = [k for k, d in per_op.items() if any(isinstance(d.get(t), dict) for t, _ in panels)]
    if not panels:
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.text(0.5, 0.5, "no per-operator profile available", ha="center", va="center")
        ax.axis("off")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return
    grouped = {}
    for k in keys:
        for t, _ in panels:
            b = per_op[k].get(t)
            if isinstance(b, dict):
                g = {}
                for name, v in b.items():
                    g[group(name)] = g.get(group(name), 0) + v
                grouped[(k, t)] = g
    share = {}
    for g in grouped.values():
        tot = sum(g.values()) or 1
        for name, v in g.items():
            share[name] = max(share.get(name, 0), v / tot)
    big = [n for n in sorted(share, key=lambda n: -share[n]) if share[n] >= 0.01][:16]
    fixed = {"runtime": "#7f7f7f", "shared libgcc": "#c7c7c7", "shared helpers": "#dbdb8d", "other": "#f7b6d2"}
    palette = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("Dark2").colors)
    palette = [c for i, c in enumerate(palette) if i not in (7, 8)]  # tab10 grey/olive are the buckets'
    colors, ci = {}, 0
    for n in big + ["other (< 1% each)"]:
        c = next((c for pre, c in fixed.items() if n.startswith(pre)), None)
        if c is None:
            c = palette[ci % len(palette)]
            ci += 1
        colors[n] = c
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels) + 3, max(3, 0.5 * len(keys) + 1.5)),
                             sharey=True, squeeze=False)
    for ax, (t, title) in zip(axes[0], panels):
        lefts = [0.0] * len(keys)
        for n in big + ["other (< 1% each)"]:
            vals = []
            for k in keys:
                g = grouped.get((k, t))
                if not g:
                    vals.append(0)
                    continue
                tot = sum(g.values()) or 1
                v = sum(x for y, x in g.items() if y not in big) if n.startswith("other") else g.get(n, 0)
                vals.append(100 * v / tot)
            ax.barh(range(len(keys)), vals, left=lefts, color=colors[n], label=n)
            lefts = [a + b for a, b in zip(lefts, vals)]
        for i, k in enumerate(keys):
            g = grouped.get((k, t))
            txt = f"{sum(g.values()):,}" if g else "n/a (run unavailable)"
            ax.text(1, i, txt, va="center", ha="left", fontsize=7, color="white" if g else "black")
        ax.set_xlim(0, 100)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("% of the whole firmware run")
    axes[0][0].set_yticks(range(len(keys)))
    axes[0][0].set_yticklabels(keys, fontsize=8)
    axes[0][0].invert_yaxis()
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle("Per-operator breakdown (shared = helpers called by several kernels, exact totals)", fontsize=10, y=1.03)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def all_plots(out, rows, per_op, pub, group_bucket):
    cycles_plot(os.path.join(out, "cycles.png"), rows, pub)
    memory_plot(os.path.join(out, "memory.png"), rows, pub)
    per_op_plot(os.path.join(out, "per_op.png"), per_op, group_bucket)
