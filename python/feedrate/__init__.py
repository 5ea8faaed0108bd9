"""feedrate: a fast image-classification data loader for PyTorch training (a DataLoader
drop-in). feedrate.Loader reads, decodes and augments batches in native threads;
feedrate.DataLoader takes torch.utils.data.DataLoader's keywords over a torchvision
ImageFolder; feedrate.gather_verdicts names the rank that holds a distributed run back.

    loader = feedrate.Loader("/data/train", batch_size=256, num_workers=8, device="cuda")
    for epoch in range(90):
        loader.set_epoch(epoch)
        for images, labels in loader:   # torch tensors, no copy
            ...

The native core is feedrate._C; its test hooks are in feedrate._testing. Neither is public."""

from feedrate._C import Error, __version__, gather_verdicts, option_names
from feedrate._dataloader import DataLoader
from feedrate._loader import Loader

# Tracebacks and help() name the public module, not the extension the class is made in.
Error.__module__ = __name__

__all__ = ["DataLoader", "Error", "Loader", "__version__", "gather_verdicts", "option_names"]
