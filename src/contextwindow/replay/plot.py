"""``--plot``: payload tokens per call for each policy, the window line, compaction/fold markers.

matplotlib is imported lazily (the ``plot`` extra) with the Agg backend, so no display is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .engine import ReplayReport

_STYLE = {"compaction": ("v", "compaction"), "fold": ("*", "fold / summary")}


def plot_report(report: ReplayReport, path: str | Path, *, title: str | None = None) -> Path:
    """Write a PNG of ``report`` to ``path`` and return the path."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib ships with the plot extra
        raise ConfigError("--plot needs matplotlib: pip install 'contextwindow[plot]'") from exc
    out = Path(path)
    fig, ax = plt.subplots(figsize=(11, 6), dpi=110)
    try:
        seen_markers: set[str] = set()
        from matplotlib.lines import Line2D
        for res in report.policies:
            xs = list(range(1, len(res.tokens_per_call) + 1))
            (line,) = ax.plot(xs, [t / 1000 for t in res.tokens_per_call], lw=1.8, label=_label(res.policy, res.over_window_calls))
            for call, kind in sorted(set(res.markers)):
                marker, name = _STYLE.get(kind, ("o", kind))
                seen_markers.add(kind)
                ax.plot(
                    call + 1, res.tokens_per_call[call] / 1000, marker=marker, ms=9 if kind == "fold" else 7,
                    color=line.get_color(), mec="black", mew=0.6, ls="none",
                )
        ax.axhline(report.window / 1000, color="crimson", ls="--", lw=1.5, label=f"window ({report.window:,} tokens)")
        handles: list[Any] = ax.get_legend_handles_labels()[0]
        for kind in sorted(seen_markers):
            marker, name = _STYLE.get(kind, ("o", kind))
            handles.append(Line2D([], [], marker=marker, color="lightgray", mec="black", mew=0.6, ls="none", ms=8, label=name))
        ax.set_xlabel("model call (in the order of the log)")
        ax.set_ylabel("prompt tokens sent (thousands)")
        name = Path(report.session).name if not report.session.startswith("demo") else "demo session"
        ax.set_title(title or f"Replay of {name} — {report.model}, window {report.window:,}")
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.legend(handles=handles, loc="upper left", fontsize=9, framealpha=0.9)
        fig.tight_layout()
        fig.savefig(out, format="png")
    finally:
        plt.close(fig)
    return out


def _label(policy: str, over: int) -> str:
    return f"{policy} ({over} calls over the window)" if over else policy
