"""Reading an image file safely: size limits before reading, dimension limits before decoding, clear errors.

Pillow reads only the header on `Image.open`, so the width and height are checked against the limits
before any pixel is decoded: a decompression bomb (a small file that decodes to gigapixels) is refused
without allocating it. Pillow's own bomb check (a process-wide setting) is left as it is; ours is per call.
The file's bytes are hashed (SHA-256) for dedupe: the same bytes are the same image, whatever the name.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core.errors import UserInputError

# Formats Daemon accepts (Pillow's format names) and the media type each is stored as.
MEDIA_TYPES = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WEBP": "image/webp",
    "BMP": "image/bmp",
    "TIFF": "image/tiff",
}
ACCEPTED = "PNG, JPEG, GIF, WebP, BMP or TIFF"
ENCODE_SIDE = 448  # the copy kept for encoding and captioning: CLIP reads 224 px, vision models ~512


class ImageRejected(UserInputError):
    """An image file that cannot be stored: too big, not an image, damaged, or of an unsupported format."""


@dataclass(frozen=True)
class ImageLimits:
    """Refuse files over `max_bytes`, images over `max_pixels` (width x height) or `max_side` either way."""

    max_bytes: int
    max_pixels: int
    max_side: int


@dataclass(frozen=True)
class DecodedImage:
    """One checked image: its content hash, format and size, the EXIF date it was taken (if any), and
    a small RGB copy (longest side at most `ENCODE_SIDE`) for the encoder and the captioner."""

    sha256: str
    media_type: str
    width: int
    height: int
    size_bytes: int
    taken_at: datetime | None
    preview: Any  # PIL.Image.Image, RGB

    def preview_png(self) -> bytes:
        """The preview as PNG bytes (what a vision model is sent)."""
        buffer = io.BytesIO()
        self.preview.save(buffer, format="PNG")
        return buffer.getvalue()


def read_image_bytes(path: Path, limits: ImageLimits) -> bytes:
    """The file's bytes, refused (before reading) when it is missing, not a file or over the size limit."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ImageRejected(f"no such image file: {path}") from None
    except OSError as error:
        raise ImageRejected(f"cannot read {path}: {error.strerror}") from None
    if not path.is_file():
        raise ImageRejected(f"{path} is not a file")
    if size > limits.max_bytes:
        raise ImageRejected(
            f"{path.name} is {size / 1e6:.1f} MB; images up to {limits.max_bytes / 1e6:.0f} MB are accepted "
            "(visual.max_file_mb)"
        )
    try:
        return path.read_bytes()
    except OSError as error:
        raise ImageRejected(f"cannot read {path}: {error.strerror}") from None


def decode_image(data: bytes, limits: ImageLimits, name: str = "image") -> DecodedImage:
    """Check and decode `data`; `ImageRejected` with a message naming `name` when it cannot be used."""
    from PIL import Image, UnidentifiedImageError

    digest = hashlib.sha256(data).hexdigest()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            fmt = image.format or ""
            width, height = image.size
            _check_dimensions(name, width, height, limits)
            if fmt not in MEDIA_TYPES:
                raise ImageRejected(f"{name}: the {fmt or 'unknown'} format is not accepted; {ACCEPTED}")
            image.load()  # decodes here: a truncated or damaged file fails now, not later
            taken = _taken_at(image)
            preview = _preview(image)
    except ImageRejected:
        raise
    except UnidentifiedImageError:
        raise ImageRejected(f"{name} is not an image Daemon can read ({ACCEPTED})") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        # Pillow's own guard, at open: far beyond any limit of ours (its message gives the pixel count)
        raise ImageRejected(f"{name} decodes to too many pixels ({error})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        raise ImageRejected(f"{name} is damaged and cannot be decoded ({error})") from None
    return DecodedImage(digest, MEDIA_TYPES[fmt], width, height, len(data), taken, preview)


def _check_dimensions(name: str, width: int, height: int, limits: ImageLimits) -> None:
    if width < 1 or height < 1:
        raise ImageRejected(f"{name} has no pixels ({width}x{height})")
    if max(width, height) > limits.max_side or width * height > limits.max_pixels:
        raise ImageRejected(
            f"{name} is {width}x{height} pixels; images up to {limits.max_side} pixels a side and "
            f"{limits.max_pixels:,} pixels in all are accepted (visual.max_side, visual.max_pixels)"
        )


def _preview(image: Any) -> Any:
    """A small RGB copy: the first frame, transparency flattened on white, longest side <= ENCODE_SIDE."""
    from PIL import Image

    frame = image.convert("RGBA")
    flat = Image.new("RGB", frame.size, (255, 255, 255))
    flat.paste(frame, mask=frame.getchannel("A"))
    flat.thumbnail((ENCODE_SIDE, ENCODE_SIDE))
    return flat


def _taken_at(image: Any) -> datetime | None:
    """EXIF DateTimeOriginal (else DateTime), as written by the camera (local time, no zone)."""
    from PIL import ExifTags

    try:
        exif = image.getexif()
        raw = exif.get_ifd(ExifTags.IFD.Exif).get(ExifTags.Base.DateTimeOriginal) or exif.get(
            ExifTags.Base.DateTime
        )
        return datetime.strptime(str(raw).strip(), "%Y:%m:%d %H:%M:%S") if raw else None
    except (ValueError, TypeError, KeyError, OSError):
        return None  # a malformed EXIF block costs the date, never the image
