class M(torch.nn.Module):
    def forward(self, a,
        b = torch.ops.aten.sin.default(a
        return (b,
