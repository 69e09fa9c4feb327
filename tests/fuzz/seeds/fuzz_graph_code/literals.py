def forward(self, x: "f32[s0, 2*s1][2*s1, 1]cuda:0", s0: "Sym(s0)"):
    y = torch.ops.aten.full.default([s0, 4], -inf, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
    z = x[(slice(None, None, None), 0)]
    w = torch.ops.aten.clone.default(z, memory_format = torch.channels_last);  z = None
    v = (w @ y) ** 2 // 3 - -1.5e-05 != nan
    u = v.view(-1, 'a\'b', (1,), [], None, True, Ellipsis)
    return (u, None)
