"""Tool output of the held-out ``moss`` family (``memory_family_moss.py``): bulky, random, and never a
planted value (the generator checks that and redraws a seed whose output collides). Thirteen shapes, a
log that prints ERROR/WARNING lines and exits 0, and a traceback with ``is_error``.
"""

from __future__ import annotations

import json
import random

WORDS = ("alpha", "delta", "kilo", "lima", "oscar", "tango", "zulu", "sierra", "echo", "golf", "hotel", "papa")


def _stamp(rng: random.Random) -> str:
    return f"2026-10-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"


def _render_log(rng: random.Random, n: int) -> tuple[str, bool]:
    lines = [f"{_stamp(rng)} INFO job={rng.randint(1000, 9999)} frame={rng.randint(1, 90000)} node=rn{rng.randint(1, 40)} took={rng.random() * 9:.3f}s" for _ in range(n)]
    for _ in range(max(1, n // 8)):
        lines.insert(rng.randrange(len(lines)), f"{_stamp(rng)} ERROR job={rng.randint(1000, 9999)} retrying after transient storage error (attempt {rng.randint(1, 3)})")
    lines.insert(rng.randrange(len(lines)), f"{_stamp(rng)} WARNING cache miss ratio {rng.random():.3f}")
    return "\n".join([*lines, "render finished, exit status 0"]), False


def _ffprobe(rng: random.Random, n: int) -> tuple[str, bool]:
    streams = [{"index": i, "codec_name": rng.choice(("prores", "pcm_s24le", "dnxhd")), "width": 3840, "height": 2160,
                "r_frame_rate": "25/1", "nb_frames": str(rng.randint(1000, 99999)), "bit_rate": str(rng.randint(10**6, 9 * 10**8))} for i in range(max(2, n // 6))]
    return json.dumps({"streams": streams, "format": {"duration": f"{rng.random() * 5000:.3f}", "size": str(rng.randint(10**8, 10**11))}}, indent=1), False


def _json(rng: random.Random, n: int) -> tuple[str, bool]:
    rows = [{"id": rng.randint(10000, 99999), "name": f"{rng.choice(WORDS)}_{rng.randint(1, 999)}", "score": round(rng.random(), 4),
             "tags": rng.sample(WORDS, 3)} for _ in range(n)]
    return json.dumps({"count": len(rows), "items": rows}, indent=1), False


def _pytest(rng: random.Random, n: int) -> tuple[str, bool]:
    names = [f"tests/test_{rng.choice(WORDS)}.py::test_{rng.choice(WORDS)}_{i} PASSED" for i in range(n)]
    failed = rng.random() < 0.3
    if failed:
        names[-1] = names[-1].replace("PASSED", "FAILED")
    tail = f"{n - failed} passed{', 1 failed' if failed else ''} in {rng.random() * 30:.2f}s"
    return "\n".join(["============ test session starts ============", *names, f"============ {tail} ============"]), False


def _grep(rng: random.Random, n: int) -> tuple[str, bool]:
    return "\n".join(f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py:{rng.randint(1, 900)}:    value = compute_{rng.choice(WORDS)}(row, limit=None)"
                     for _ in range(n)), False


def _traceback(rng: random.Random, n: int) -> tuple[str, bool]:
    frames = [f'  File "src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py", line {rng.randint(1, 700)}, in {rng.choice(WORDS)}\n    return handler(payload)'
              for _ in range(max(3, n // 3))]
    return "\n".join(["Traceback (most recent call last):", *frames, f"KeyError: '{rng.choice(WORDS)}_{rng.randint(1, 99)}'"]), True


def _csv(header: tuple[str, ...], cell: object) -> object:
    def make(rng: random.Random, n: int) -> tuple[str, bool]:
        return "\n".join([",".join(header), *(",".join(cell(rng) for _ in header) for _ in range(n))]), False  # type: ignore[operator]
    return make


def _cell(rng: random.Random) -> str:
    return rng.choice((str(rng.randint(0, 99999)), f"{rng.random() * 100:.2f}", rng.choice(WORDS)))


def _mqtt(rng: random.Random, n: int) -> tuple[str, bool]:
    return "\n".join(f"{_stamp(rng)} farm/field{rng.randint(1, 30)}/probe{rng.randint(1, 400)}/moisture {rng.random() * 60:.2f} rssi=-{rng.randint(60, 120)}"
                     for _ in range(n)), False


def _access(rng: random.Random, n: int) -> tuple[str, bool]:
    paths = ("/book", "/rooms", "/availability", "/checkout", "/api/rates")
    return "\n".join(f'10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)} - - [{_stamp(rng)}] "GET {rng.choice(paths)}?q={rng.randint(1, 99999)} HTTP/1.1" '
                     f"{rng.choice((200, 200, 200, 304, 404, 500))} {rng.randint(200, 90000)}" for _ in range(n)), False


def _sql(rng: random.Random, n: int) -> tuple[str, bool]:
    head = " id     | label          | qty   | ratio"
    rows = [f" {rng.randint(1, 999999):<6} | {rng.choice(WORDS) + '_' + str(rng.randint(1, 99)):<14} | {rng.randint(0, 9999):<5} | {rng.random():.4f}" for _ in range(n)]
    return "\n".join([head, "-" * len(head), *rows, f"({n} rows)"]), False


SHAPES = {
    "render_log": ("run", _render_log), "ffprobe": ("run", _ffprobe), "json": ("http_get", _json), "pytest": ("run", _pytest),
    "grep": ("grep", _grep), "traceback": ("run", _traceback), "mqtt_log": ("run", _mqtt), "access_log": ("read_file", _access),
    "sql": ("query", _sql), "sensor_csv": ("read_file", _csv(("probe", "field", "moisture", "temp_raw", "battery"), _cell)),
    "gtfs_stats": ("run", _csv(("route_id", "trips", "stops", "avg_gap_s", "late_share"), _cell)),
    "csv_export": ("read_file", _csv(("donor_ref", "segment", "last_gift", "gifts", "score"), _cell)),
    "plate_csv": ("read_file", _csv(("plate", "well", "sample", "conc", "q30_raw"), _cell)),
}


def tool_output(rng: random.Random, shape: str, lines: int) -> tuple[str, dict[str, object], str, bool]:
    """(tool name, arguments, output text, is_error) of one call of ``shape`` about ``lines`` lines long."""
    name, make = SHAPES[shape]
    text, err = make(rng, lines)  # type: ignore[operator]
    args: dict[str, object] = {"cmd": f"{shape.replace('_', '-')} --batch {rng.randint(1, 999)}"} if name == "run" else {"target": f"{shape}/{rng.randint(1, 999)}"}
    return name, args, text, err
