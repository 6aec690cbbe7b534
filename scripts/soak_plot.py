"""The soak's plot (`scripts/soak.py` writes it as soak.png): p95 latency per route over time, and the servers' RSS."""

from __future__ import annotations

from pathlib import Path


def plot_soak(ledger, samples: list[dict], config, path: Path) -> None:
    """p95 latency per route over time (log scale) above the servers' RSS, the outages shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    span = 60 * config.minutes
    width = max(10.0, span / 30)
    for route in sorted({r["route"] for r in ledger.requests}):
        points = [r for r in ledger.requests if r["route"] == route]
        bins = sorted({int(r["t"] // width) for r in points})
        p95 = []
        for b in bins:
            seconds = sorted(r["seconds"] for r in points if int(r["t"] // width) == b)
            p95.append(seconds[int(0.95 * (len(seconds) - 1))])
        top.plot([(b + 0.5) * width / 60 for b in bins], p95, marker=".", label=route)
    top.set_ylabel("p95 latency (s)")
    top.set_yscale("log")
    top.legend(ncol=4, fontsize=8)
    bottom.plot([s["t"] / 60 for s in samples], [s["rss_mb"] for s in samples], color="black")
    bottom.set_ylabel("servers' RSS (MB)")
    bottom.set_xlabel("minutes")
    for start, end, what in ledger.outages:
        for axis in (top, bottom):
            axis.axvspan(start / 60, end / 60, color="red", alpha=0.15)
        top.annotate(what, (start / 60, top.get_ylim()[1]), fontsize=7, va="top")
    servers = f"{config.replicas} replicas behind HAProxy" if config.replicas > 1 else "one server"
    fig.suptitle(f"{config.clients} clients, {config.minutes:g} min, {servers}, shipped model on CPU")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
