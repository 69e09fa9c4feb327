# Makes the fuzz_torchscript seeds from the TorchScript fixtures (run from the repository root
# with any python3): the same archives with every entry stored, so that the fuzzer's byte
# mutations land in code/*.py and the pickles (its mutator rewrites stored entries' CRCs), and
# the checkout path that torch.jit.trace recorded in the *.debug_pkl stack traces replaced by a
# relative one of the same length (pickled strings keep their lengths). The regress_*.pt files
# beside them are fuzz_torchscript finds that crashed LibTorch before the archive checks.
import zipfile

FIXTURES = "tests/data/torchscript"
SEEDS = "tests/fuzz/seeds/fuzz_torchscript"
LOCAL, RELATIVE = b"/work/main/", b"../fxscope/"
assert len(LOCAL) == len(RELATIVE)

for name in ("mlp", "conv_block", "scripted_branch"):
    with zipfile.ZipFile(f"{FIXTURES}/{name}.pt") as src, \
            zipfile.ZipFile(f"{SEEDS}/{name}.pt", "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info.filename).replace(LOCAL, RELATIVE)
            assert b"/work/" not in data and b"/home/" not in data, info.filename
            out = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            dst.writestr(out, data, compress_type=zipfile.ZIP_STORED)
