"""Device tensors (skipped without a CUDA GPU): on the right device, synchronised with torch's
current stream, equal to the host path for the same seed."""

import pytest

from conftest import feedrate, small

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float16"])
def test_device_batches_equal_host_batches(image_folder, dtype):
    host = feedrate.Loader(image_folder, **small(seed=9, arrays="torch",
                                                 dtype="float32" if dtype == "float16" else dtype))
    device = feedrate.Loader(image_folder, **small(seed=9, arrays="torch", dtype=dtype,
                                                   device="cuda:0"))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # the loader must sync with this stream, not the default
        for (hi, hl), (di, dl) in zip(host, device):
            assert di.device == torch.device("cuda", 0) and dl.device == di.device
            assert di.dtype == getattr(torch, dtype)
            # Work queued on the current stream right away must see the copied batch.
            total = di.float().sum()
            torch.testing.assert_close(total.cpu(), hi.float().sum(), rtol=1e-3, atol=1e-2)
            tolerance = 1e-2 if dtype == "float16" else 1e-5
            torch.testing.assert_close(di.float().cpu(), hi.float(), rtol=0, atol=tolerance)
            assert torch.equal(dl.cpu(), hl)
