"""Streaming HDF5 storage of results: a writer an analysis appends frames to, and a loader.

An analysis appends one frame per output instant to a :class:`ResultsWriter`. A frame is a
``dict[str, numpy.ndarray]`` keyed as in :meth:`ResultsLayout.frame_shapes`, or a
:class:`PackedFrame`, the same entries in one flat row (what the analyses make: it is stored
in one copy, without checking each entry). The writer keeps every frame in memory, as the
rows of one array, and, given a path, streams them to an HDF5 file that exists from the
moment the writer is made, holds every frame at most ``flush_interval`` (0.5 s) of wall time
after it was appended, and is closed with a status. A run that dies, even by SIGKILL or a power
cut of the process, leaves a file that :func:`load_results` reads, with every frame appended
until about half a second before.

Durability: a flushed frame count, not HDF5 SWMR. The file is a plain HDF5 file (the library's
earliest format); a flush writes the new rows, pushes them to disk (``H5Fflush``), and only then
raises the root attribute ``frame_count`` and flushes again, so the count on disk never runs ahead
of the rows on disk, and a reader takes the first ``frame_count`` rows. SWMR was tried and
rejected: it needs the 1.10 file format, whose superblock marks the file "open for write" until
the writer closes it, so after a kill a plain reader refuses the file ("file is already open for
write, use h5clear") and a SWMR reader retried for minutes on the killed file's metadata; its
one gain, reading while the run goes, is not needed to keep results. Killed writers tested: 40
SIGKILLs at random instants of a writer flushing continuously left 40 readable, consistent files.

Frames are flushed from the thread that appends them once ``flush_interval`` has passed since the
last flush; a frame that waits longer (output instants further apart than the interval) is
flushed by a timer thread, so the bound holds however sparse the output is. A lock orders the two.

HDF5 file layout (format_version 1); T = output instants, nb/nj/nf = bodies/joints/forces,
any of which may be 0; all datasets float64, chunked and resizable along axis 0 (time)::

    /                          attrs: model_name, analysis,
                                      status ("running" | "complete" | "failed" | "interrupted"),
                                      message, format_version = 1,
                                      frame_count (rows of every dataset that are complete),
                                      aliases (optional JSON list of [alias, element name])
    /scene                     ()            optional UTF-8 JSON: what the animation draws
    /time                      (T,)          [s]
    /body/names                (nb,)         UTF-8 strings
    /body/position             (T, nb, 3)    CM position, world [m]
    /body/velocity             (T, nb, 3)    CM velocity, world [m/s]
    /body/acceleration         (T, nb, 3)    CM acceleration, world [m/s^2]
    /body/euler_parameters     (T, nb, 4)    scalar first [-]
    /body/angular_velocity     (T, nb, 3)    world [rad/s]
    /body/angular_acceleration (T, nb, 3)    world [rad/s^2]
    /joint/names               (nj,)         UTF-8 strings
    /joint/reaction_force      (T, nj, 3)    on the I marker, world [N]
    /joint/reaction_torque     (T, nj, 3)    about the I marker origin, world [N m]
    /joint/reaction_force_in_j (T, nj, 3)    the same force in J-marker axes [N]
    /joint/reaction_torque_in_j (T, nj, 3)   the same torque in J-marker axes [N m]
    /force/names               (nf,)         UTF-8 strings
    /force/force               (T, nf, 3)    force applied at the I marker, world [N]
    /force/torque              (T, nf, 3)    torque applied at the I marker, world [N m]
    /force/value               (T, nf)       the element's scalar (e.g. spring force) [N or N m]
    /energy/kinetic            (T,)          [J]; likewise potential, total, dissipated
    /stats                     group; attrs: solver statistics (int or float)

The root attribute frame_count is raised only after every dataset's new rows are on disk, so a
file cut off at any instant, in the middle of a flush too, is still read consistently.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from multibody.results.results import FloatArray, Results, ResultsLayout

FORMAT_VERSION = 1

#: Statuses a writer can be closed with.
FINAL_STATUSES: tuple[str, ...] = ("complete", "failed", "interrupted")

# Target size of one HDF5 chunk, and a cap on its rows so that short runs stay small files.
_CHUNK_BYTES = 16 * 1024
_MAX_CHUNK_ROWS = 1024


def _chunk_shape(frame_shape: tuple[int, ...]) -> tuple[int, ...] | bool:
    """Chunk of whole frames along time, about _CHUNK_BYTES; h5py's choice for empty frames."""
    if 0 in frame_shape:
        return True  # a chunk may not be larger than a fixed dimension of size 0
    bytes_per_frame = 8 * math.prod(frame_shape)
    rows = min(_MAX_CHUNK_ROWS, max(1, _CHUNK_BYTES // bytes_per_frame))
    return (rows, *frame_shape)


class _ResultsFile:
    """An open HDF5 results file being written: layout on creation, then rows, then a status."""

    def __init__(self, path: str | os.PathLike[str], layout: ResultsLayout) -> None:
        import h5py  # heavy: loaded when first used

        self._file = h5py.File(path, "w")
        self._frame_count = 0
        attrs = self._file.attrs
        attrs["model_name"] = layout.model_name
        attrs["analysis"] = layout.analysis
        if layout.aliases:
            attrs["aliases"] = json.dumps(layout.aliases)
        if layout.state_sizes:
            attrs["state_sizes"] = json.dumps(layout.state_sizes)
        if layout.modal_sizes:
            attrs["modal_sizes"] = json.dumps(layout.modal_sizes)
        if layout.cable_sizes:
            attrs["cable_sizes"] = json.dumps(layout.cable_sizes)
        if layout.scene:  # a dataset, not an attribute: attributes are limited to 64 kB
            self._file.create_dataset("scene", data=layout.scene, dtype=h5py.string_dtype())
        attrs["status"] = "running"
        attrs["message"] = ""
        attrs["format_version"] = FORMAT_VERSION
        attrs["frame_count"] = 0
        for group_key, names in layout.element_names().items():
            self._file.create_dataset(f"{group_key}/names", data=list(names), dtype=h5py.string_dtype())
        for key, frame_shape in layout.frame_shapes().items():
            self._file.create_dataset(
                key,
                shape=(0, *frame_shape),
                maxshape=(None, *frame_shape),
                dtype=np.float64,
                chunks=_chunk_shape(frame_shape),
            )
        self._file.create_group("stats")
        self._file.flush()

    def append_rows(self, rows: Mapping[str, FloatArray]) -> None:
        """Append rows (k, *frame shape) to every dataset, push them to disk, then count them in
        frame_count and push that too: the count on disk never exceeds the rows on disk."""
        new_count = self._frame_count + len(rows["time"])
        for key, block in rows.items():
            dataset = self._file[key]
            dataset.resize(new_count, axis=0)
            dataset[self._frame_count :] = np.ascontiguousarray(block)
        self._file.flush()
        self._frame_count = new_count
        self._file.attrs["frame_count"] = new_count
        self._file.flush()

    def close(self, status: str, message: str, stats: Mapping[str, int | float]) -> None:
        """Record how the run ended and close the file."""
        self._file.attrs["status"] = status
        self._file.attrs["message"] = message
        stats_attrs = self._file["stats"].attrs
        for name, value in stats.items():
            stats_attrs[name] = value
        self._file.close()


@dataclass(frozen=True, eq=False)
class FramePacking:
    """Where each entry of a frame lies in one flat float64 row: the frames of a run are kept as
    rows of one (T, width) array, so that storing a frame is a single copy.

    Made from ``ResultsLayout.frame_shapes()``; equal packings have the same keys and shapes in
    the same order."""

    shapes: tuple[tuple[str, tuple[int, ...]], ...]
    """(key, frame shape) per entry, in row order"""

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Per key, its columns of the row."""
        slices, start = {}, 0
        for key, shape in self.shapes:
            size = math.prod(shape)
            slices[key] = slice(start, start + size)
            start += size
        return slices

    @cached_property
    def frame_shapes(self) -> dict[str, tuple[int, ...]]:
        """Per key, the entry's shape in one frame."""
        return dict(self.shapes)

    @cached_property
    def width(self) -> int:
        """Floats per frame."""
        return sum(math.prod(shape) for _, shape in self.shapes)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, FramePacking) and self.shapes == other.shapes)

    def __hash__(self) -> int:
        return hash(self.shapes)

    @staticmethod
    def of(layout: ResultsLayout) -> FramePacking:
        """The packing of ``layout``'s frames."""
        return FramePacking(tuple(layout.frame_shapes().items()))

    def unpack(self, rows: FloatArray) -> dict[str, FloatArray]:
        """Views of packed ``rows`` (..., width) keyed like a frame, each (..., *frame shape)."""
        lead = rows.shape[:-1]
        return {key: rows[..., self.slices[key]].reshape(*lead, *shape) for key, shape in self.shapes}


class PackedFrame(Mapping[str, FloatArray]):
    """One frame stored as a packed row (``FramePacking``), read like the frame dict: ``frame[key]``
    is a view of the row with the entry's shape. ``ResultsWriter.append`` copies it in one go."""

    __slots__ = ("packing", "row")

    def __init__(self, packing: FramePacking, row: FloatArray | None = None) -> None:
        self.packing = packing
        self.row = np.empty(packing.width) if row is None else row
        """(width,) the frame's values"""

    def __getitem__(self, key: str) -> FloatArray:
        return self.row[self.packing.slices[key]].reshape(self.packing.frame_shapes[key])

    def __setitem__(self, key: str, value: npt.ArrayLike) -> None:
        """Write one entry (its frame shape, or anything that broadcasts to it)."""
        self.row[self.packing.slices[key]] = np.ravel(value)

    def __iter__(self) -> Iterator[str]:
        return iter(self.packing.slices)

    def __len__(self) -> int:
        return len(self.packing.shapes)


class _FrameBuffer:
    """Frames kept in memory as packed rows (``FramePacking``) of one array that grows by doubling."""

    def __init__(self, layout: ResultsLayout) -> None:
        self._layout = layout
        self.packing = FramePacking.of(layout)
        self._frame_shapes = self.packing.frame_shapes
        self._count = 0
        self._rows = np.empty((16, self.packing.width))

    def __len__(self) -> int:
        return self._count

    def append(self, frame: Mapping[str, npt.ArrayLike]) -> None:
        """Store a copy of the frame; a frame of another packing is checked against the layout's
        keys and shapes first."""
        if self._count == len(self._rows):
            self._rows = np.concatenate([self._rows, np.empty_like(self._rows)])
        if isinstance(frame, PackedFrame) and frame.packing == self.packing:
            self._rows[self._count] = frame.row
            self._count += 1
            return
        if frame.keys() != self._frame_shapes.keys():
            self._layout.check_keys(frame.keys(), "frame keys")
        for key, frame_shape in self._frame_shapes.items():
            if np.shape(frame[key]) != frame_shape:
                raise ValueError(f"frame[{key!r}] has shape {np.shape(frame[key])}; the layout needs {frame_shape}")
        row = self._rows[self._count]
        for key, columns in self.packing.slices.items():
            row[columns] = np.ravel(frame[key])
        self._count += 1

    def append_rows(self, rows: FloatArray) -> None:
        """Store copies of packed frames ``rows`` (k, width) of this packing."""
        if rows.ndim != 2 or rows.shape[1] != self.packing.width:
            raise ValueError(f"packed frames have shape {rows.shape}; the layout needs (k, {self.packing.width})")
        while self._count + len(rows) > len(self._rows):
            self._rows = np.concatenate([self._rows, np.empty_like(self._rows)])
        self._rows[self._count : self._count + len(rows)] = rows
        self._count += len(rows)

    def rows(self, start: int, stop: int) -> dict[str, FloatArray]:
        """Views of frames start..stop-1, keyed like a frame, each (stop - start, *frame shape)."""
        return self.packing.unpack(self._rows[start:stop])


class ResultsWriter:
    """Collects an analysis's frames in memory and streams them to an HDF5 file.

    Use as a context manager: leaving the block normally closes with status "complete"; an
    exception closes with "failed" (KeyboardInterrupt: "interrupted") and the exception's text
    as message, flushing the frames appended so far, and the exception propagates.

    Args:
        path: the HDF5 file to write, created (or overwritten) now with status "running";
            None to keep the results in memory only.
        layout: the model, analysis and element names; fixes the shape of every frame.
        flush_interval: the longest a frame waits in memory before it is in the file, wall
            clock [s]; 0 writes every frame as it is appended.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        layout: ResultsLayout,
        flush_interval: float = 0.5,
    ) -> None:
        self._path = None if path is None else Path(path)
        self._layout = layout
        self._flush_interval = flush_interval
        self._frames = _FrameBuffer(layout)
        self._file = None if self._path is None else _ResultsFile(self._path, layout)
        self._frames_in_file = 0
        self._last_flush = time.monotonic()
        self._lock = threading.Lock()  # the appending thread and the flush timer share the file
        self._flush_timer: threading.Timer | None = None
        self._timer_error: Exception | None = None  # a failed timed flush, raised to the appending thread
        self._status = "running"
        self._message = ""
        self._stats: dict[str, int | float] = {}

    @property
    def path(self) -> Path | None:
        """The HDF5 file being written, or None when the results are kept in memory only."""
        return self._path

    @property
    def layout(self) -> ResultsLayout:
        """The layout every frame must follow."""
        return self._layout

    @property
    def packing(self) -> FramePacking:
        """How the frames are packed in memory (a ``PackedFrame`` of it is stored in one copy)."""
        return self._frames.packing

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._status != "running"

    def append(self, frame: Mapping[str, npt.ArrayLike]) -> None:
        """Store one output instant; it is in the file within ``flush_interval`` [s] of wall time.

        Args:
            frame: one array per key of ``layout.frame_shapes()``, e.g. "time" (),
                "body/position" (nb, 3), or a ``PackedFrame`` (of ``packing``: stored in one
                copy); values are copied.
        """
        self._store(self._frames.append, frame)

    def append_rows(self, rows: FloatArray) -> None:
        """Store output instants given as packed frames ``rows`` (k, ``packing.width``), as ``append``
        stores each (the frames compiled stepping writes, ``multibody.analysis.stepping``)."""
        if len(rows):
            self._store(self._frames.append_rows, rows)

    def _store(self, store: Callable[[Any], None], frames: Any) -> None:
        """``store(frames)`` into the buffer; into the file within ``flush_interval``."""
        if self.closed:
            raise RuntimeError(f"cannot append to a ResultsWriter closed with status {self._status!r}")
        with self._lock:
            self._raise_timer_error()
            store(frames)
            if self._file is None:
                return
            waited = time.monotonic() - self._last_flush
            if waited >= self._flush_interval:
                self._flush_locked()
            elif self._flush_timer is None:
                self._flush_timer = threading.Timer(self._flush_interval - waited, self._flush_on_timer)
                self._flush_timer.daemon = True
                self._flush_timer.start()

    def flush(self) -> None:
        """Write the frames not yet in the file and push the file to disk (no-op in memory)."""
        with self._lock:
            self._raise_timer_error()
            self._flush_locked()

    def close(self, status: str, message: str = "", stats: Mapping[str, int | float] | None = None) -> None:
        """Write the remaining frames, record how the run ended, and close the file.

        Args:
            status: "complete", "failed" or "interrupted".
            message: why the run stopped, when it did not complete.
            stats: solver statistics, stored as attributes of /stats.
        """
        if status not in FINAL_STATUSES:
            raise ValueError(f"cannot close with status {status!r}; use one of: {', '.join(FINAL_STATUSES)}")
        if self.closed:
            raise RuntimeError(f"ResultsWriter already closed with status {self._status!r}")
        with self._lock:
            self._cancel_flush_timer()
            self._status, self._message, self._stats = status, message, dict(stats or {})
            if self._file is not None:
                self._write_pending_frames()
                self._file.close(status, message, self._stats)

    def results(self) -> Results:
        """The results of the frames appended so far (status "running" until closed)."""
        frames = self._frames.rows(0, len(self._frames))
        return Results(self._layout, frames, self._status, self._message, self._stats)

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.closed:
            return
        if exc is None:
            self.close("complete")
        else:
            self.close("interrupted" if isinstance(exc, KeyboardInterrupt) else "failed", str(exc))

    def _flush_locked(self) -> None:
        """Write the pending frames (the caller holds the lock)."""
        self._cancel_flush_timer()
        if self._file is not None:
            self._write_pending_frames()
        self._last_flush = time.monotonic()

    def _flush_on_timer(self) -> None:
        """The timer thread's flush of frames that waited ``flush_interval``."""
        with self._lock:
            if self._flush_timer is not threading.current_thread() or self.closed:
                return  # cancelled while it waited for the lock: the frames went with that flush
            self._flush_timer = None
            try:
                self._flush_locked()
            except Exception as error:  # e.g. a full disk: the appending thread raises it
                self._timer_error = error

    def _raise_timer_error(self) -> None:
        if self._timer_error is not None:
            error, self._timer_error = self._timer_error, None
            raise error

    def _cancel_flush_timer(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None

    def _write_pending_frames(self) -> None:
        assert self._file is not None
        frame_count = len(self._frames)
        if frame_count > self._frames_in_file:
            self._file.append_rows(self._frames.rows(self._frames_in_file, frame_count))
            self._frames_in_file = frame_count


def save_results(results: Results, path: str | os.PathLike[str]) -> None:
    """Write results to an HDF5 file in the layout of this module (overwrites the file)."""
    results_file = _ResultsFile(path, results.layout)
    try:
        results_file.append_rows(results.arrays)
    finally:
        results_file.close(results.status, results.message, results.stats)


def load_results(path: str | os.PathLike[str]) -> Results:
    """Read results from an HDF5 file written by :class:`ResultsWriter` or :func:`save_results`.

    A partial file (status "running", "failed" or "interrupted") gives the frames that had
    been flushed.
    """
    import h5py  # heavy: loaded when first used

    with h5py.File(path, "r") as file:
        version = file.attrs.get("format_version")
        if version != FORMAT_VERSION:
            raise ValueError(f"{path}: results format_version {version!r}; this reader reads {FORMAT_VERSION}")
        layout = ResultsLayout(
            model_name=str(file.attrs["model_name"]),
            analysis=str(file.attrs["analysis"]),
            body_names=tuple(file["body/names"].asstr()[()]),
            joint_names=tuple(file["joint/names"].asstr()[()]),
            force_names=tuple(file["force/names"].asstr()[()]),
            scene=file["scene"].asstr()[()] if "scene" in file else "",
            aliases=tuple(tuple(pair) for pair in json.loads(file.attrs.get("aliases", "[]"))),
            state_sizes=tuple((str(name), int(size)) for name, size in json.loads(file.attrs.get("state_sizes", "[]"))),
            modal_sizes=tuple((str(name), int(size)) for name, size in json.loads(file.attrs.get("modal_sizes", "[]"))),
            cable_sizes=tuple((str(name), int(size)) for name, size in json.loads(file.attrs.get("cable_sizes", "[]"))),
            contact_names=tuple(file["contact/names"].asstr()[()]) if "contact/names" in file else (),
        )
        frame_count = int(file.attrs["frame_count"])
        # Files written before the work channels existed read as no work put in.
        arrays = {
            key: file[key][:frame_count] if key in file else np.zeros((frame_count, *shape))
            for key, shape in layout.frame_shapes().items()
        }
        stats = {name: np.asarray(value).item() for name, value in file["stats"].attrs.items()}
        return Results(layout, arrays, str(file.attrs["status"]), str(file.attrs["message"]), stats)
