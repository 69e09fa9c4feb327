# Generates bad_token.pt from mlp.pt (run in this folder with any python3): the same archive
# with a byte that is not UTF-8 (0xe3) in `def forward` of code/__torch__.py. LibTorch rejects
# it with a message quoting the byte; fxscope must report it as a diagnostic whose text stays
# valid UTF-8 (JSON outputs), not crash.
import zipfile

with zipfile.ZipFile("mlp.pt") as src, zipfile.ZipFile("bad_token.pt", "w") as dst:
    for info in src.infolist():
        data = src.read(info.filename)
        if info.filename == "mlp/code/__torch__.py":
            assert b"def forward" in data
            data = data.replace(b"def forward", b"d\xe3f forward", 1)
        dst.writestr(info, data)

# view_past_storage.pt: mlp.pt with fc1.weight (16 x 8 floats over storage '0', 128 floats)
# starting at element 100 instead of 0, so its view reaches element 227. negative_stride.pt:
# fc1.bias (16 floats over storage '1') with stride -1 from offset 0, reaching element -15.
# LibTorch 1.13 sets both views without a check; fxscope must refuse them before any use.
def rewrite(out, patch):
    with zipfile.ZipFile("mlp.pt") as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "mlp/data.pkl":
                data = patch(data)
            dst.writestr(info, data)


def weight_offset(pkl):
    at = 237  # BININT1 0: fc1.weight's storage offset (pickletools.dis mlp/data.pkl)
    assert pkl[at:at + 2] == b"K\x00"
    return pkl[:at] + b"K\x64" + pkl[at + 2:]


def bias_stride(pkl):
    at = 320  # BININT1 0: fc1.bias's offset, then MARK, BININT1 16, TUPLE, MARK, its stride
    assert pkl[at:at + 10] == b"K\x00(K\x10t(K\x01t"
    stride = b"J" + (-1).to_bytes(4, "little", signed=True)
    return pkl[:at] + b"K\x0f(K\x10t(" + stride + b"t" + pkl[at + 10:]


rewrite("view_past_storage.pt", weight_offset)
rewrite("negative_stride.pt", bias_stride)
