"""`bench images`: image encode latency (OpenCLIP ViT-B/32 on the CPU) beside its same-run baseline, the
Pillow decode + resize every added image pays anyway.

N photo-like PNGs (noise under coloured shapes, 640x480 to 1600x1200) are generated in memory with a fixed
seed. Each is timed alone, as `image add` handles it: the baseline decodes and checks it within the limits
and makes the encoder's copy; the measured path does that and runs the image encoder on the copy. The
model's load time is reported apart. Random weights (no `visual.weights`) cost exactly what real ones do.
"""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from memory.visual.decode import ImageLimits, decode_image
from memory.visual.encoder import ImageEncoder

SIZES = ((640, 480), (1024, 768), (1280, 960), (1600, 1200))
LIMITS = ImageLimits(max_bytes=50_000_000, max_pixels=50_000_000, max_side=20_000)


def generated_images(count: int, seed: int = 15) -> list[bytes]:
    """`count` PNG files' bytes: noise under a few coloured ellipses and rectangles, varied sizes."""
    import numpy as np
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    out = []
    for n in range(count):
        width, height = SIZES[n % len(SIZES)]
        image = Image.fromarray(noise.integers(0, 255, (height, width, 3), dtype=np.uint8))
        pen = ImageDraw.Draw(image)
        for _ in range(4):
            x, y = rng.randrange(width // 2), rng.randrange(height // 2)
            box = (x, y, x + rng.randrange(40, width // 2), y + rng.randrange(40, height // 2))
            colour = tuple(rng.randrange(256) for _ in range(3))
            (pen.ellipse if rng.random() < 0.5 else pen.rectangle)(box, fill=colour)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        out.append(buffer.getvalue())
    return out


def run_image_benchmark(
    encoder: ImageEncoder, count: int, *, clock: Callable[[], float] = time.perf_counter
) -> dict[str, Any]:
    """Per-image latency of decode + resize (baseline) and of decode + resize + encode, in ms."""
    images = generated_images(count)
    started = clock()
    encoder.encode_images([decode_image(images[0], LIMITS).preview])  # loads the model; not counted below
    load_s = clock() - started
    baseline, encoded = [], []
    for data in images:
        start = clock()
        decoded = decode_image(data, LIMITS)
        middle = clock()
        encoder.encode_images([decoded.preview])
        end = clock()
        baseline.append((middle - start) * 1000)
        encoded.append((end - start) * 1000)
    decode, total = _summary(baseline), _summary(encoded)
    return {
        "images": count,
        "encoder": encoder.name,
        "model_load_s": round(load_s, 2),
        "decode_resize_ms": decode,
        "decode_resize_encode_ms": total,
        "encode_only_p50_ms": round(total["p50"] - decode["p50"], 1),
        "ratio_p50": round(total["p50"] / decode["p50"], 2) if decode["p50"] else None,
        "mean_image_kb": round(sum(map(len, images)) / len(images) / 1024, 1),
    }


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(p95, 1)}


def image_headline(result: dict[str, Any]) -> str:
    """The result in three lines."""
    decode, total = result["decode_resize_ms"], result["decode_resize_encode_ms"]
    return (
        f"{result['images']} images, {result['encoder']} (loaded in {result['model_load_s']} s)\n"
        f"decode+resize (baseline)   p50 {decode['p50']:7.1f} ms   p95 {decode['p95']:7.1f} ms\n"
        f"decode+resize+CLIP encode  p50 {total['p50']:7.1f} ms   p95 {total['p95']:7.1f} ms   "
        f"({result['ratio_p50']}x the baseline)"
    )
