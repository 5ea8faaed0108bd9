# Stubs of feedrate._C, the pybind11 extension (python/csrc/module.cc, augment_probe.cc). The
# package's feedrate.Loader subclasses Loader; batches are torch tensors or numpy arrays, typed
# Any here so that the stubs need neither. Loader's keywords, their types and defaults are
# python/csrc/options.cc's table (_option_table()); tests/python/test_typed_signatures.py holds
# this stub to it.
import os
from typing import Any, Dict, Iterator, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
option_names: str

class Error(RuntimeError): ...

class _Epoch:
    def __iter__(self) -> _Epoch: ...
    def __next__(self) -> Tuple[Any, ...]: ...

class Loader:
    def __init__(
        self,
        source: Union[str, os.PathLike[str]],
        *,
        batch_size: int = 64,
        num_workers: int = 1,
        shuffle: Union[bool, Literal['full', 'blocks', 'none']] = True,
        shuffle_window_mb: int = 128,
        seed: int = 0,
        drop_last: bool = False,
        rank: Optional[int] = None,
        world_size: Optional[int] = None,
        pad_shards: bool = True,
        transform: str = 'train',
        size: int = 224,
        resize: Optional[int] = None,
        scale: Optional[Tuple[float, float]] = None,
        ratio: Optional[Tuple[float, float]] = None,
        flip_probability: Optional[float] = None,
        dtype: Optional[Union[Literal['uint8', 'float32', 'float16'], Any]] = None,
        mean: Optional[Sequence[float]] = None,
        std: Optional[Sequence[float]] = None,
        device: Union[str, Any] = 'cpu',
        on_bad: Literal['error', 'skip'] = 'error',
        on_missing: Literal['error', 'skip'] = 'skip',
        fields: Sequence[str] = ('cls',),
        image: str = '',
        annotations: Optional[Union[str, os.PathLike[str]]] = None,
        masks: Optional[Union[bool, str, os.PathLike[str]]] = None,
        labels: Literal['category_id', 'contiguous', 'zero_based'] = 'category_id',
        targets: Literal['dicts', 'flat', 'yolo'] = 'dicts',
        prefetch_batches: int = 3,
        memory_budget_mb: int = 0,
        io_queue_depth: int = 64,
        force_pread: bool = False,
        direct_io: bool = False,
        throttle: str = '',
        tar_chunk_bytes: int = 4194304,
        max_pixels: int = 100000000,
        training_images_per_s: float = 0.0,
        allow_paths_outside_root: bool = False,
        allow_empty_classes: bool = False,
        arrays: Literal['auto', 'torch', 'numpy'] = 'auto',
        progress: bool = False,
        return_indices: bool = False,
        cache_dir: Optional[Union[str, os.PathLike[str]]] = None,
        cache_gb: float = 0.0,
    ) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Tuple[Any, ...]]: ...
    def set_epoch(self, epoch: int) -> None: ...
    def state_dict(self) -> Dict[str, Any]: ...
    def load_state_dict(self, state_dict: Dict[str, Any]) -> None: ...
    def report(self, probe_packing: bool = False) -> Dict[str, Any]: ...
    def _figures(self) -> Dict[str, Any]: ...
    @property
    def epoch(self) -> int: ...
    @property
    def arrays(self) -> str: ...
    @property
    def classes(self) -> List[str]: ...
    @property
    def class_to_idx(self) -> Dict[str, int]: ...
    @property
    def num_samples(self) -> int: ...
    @property
    def rank(self) -> int: ...
    @property
    def world_size(self) -> int: ...

def _option_table() -> Dict[str, Tuple[str, Any]]: ...
def _diagnose(figures: Dict[str, Any]) -> Dict[str, Any]: ...
def gather_verdicts(loader: Loader, dist: Optional[Any] = None) -> Dict[str, Any]: ...
def _apply_op(image: npt.ArrayLike, op: str, magnitude: float = 0.0,
              fill: Sequence[float] = (0.0, 0.0, 0.0)) -> npt.NDArray[np.uint8]: ...
def _resized_crop(image: npt.ArrayLike, top: int, left: int, height: int, width: int, size: int,
                  interpolation: str) -> npt.NDArray[np.uint8]: ...
