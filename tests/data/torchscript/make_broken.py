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
