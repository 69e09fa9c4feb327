class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[1000][1]cuda:0"  # PlainAOTInput(idx=0)
        tangents_1: "f32[1000][1]cuda:0"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        # File: /home/user/demo/scenario.py:38 in forward, code: return x.sin()
        sin: "f32[1000][1]cuda:0" = torch.ops.aten.sin.default(primals_1)

        # File: /home/user/demo/scenario.py:44 in fn, code: return MySin.apply(x) * 3 + 1
        mul: "f32[1000][1]cuda:0" = torch.ops.aten.mul.Tensor(sin, 3);  sin = None
        add: "f32[1000][1]cuda:0" = torch.ops.aten.add.Tensor(mul, 1);  mul = None
        mul_1: "f32[1000][1]cuda:0" = torch.ops.aten.mul.Tensor(tangents_1, 3);  tangents_1 = None

        # File: /home/user/demo/scenario.py:42 in backward, code: return g * x.cos()
        cos: "f32[1000][1]cuda:0" = torch.ops.aten.cos.default(primals_1);  primals_1 = None
        mul_2: "f32[1000][1]cuda:0" = torch.ops.aten.mul.Tensor(mul_1, cos);  mul_1 = cos = None
        return pytree.tree_unflatten([
            add,  # PlainAOTOutput(idx=0)
            mul_2,  # GradAOTOutput(grad_of=PlainAOTInput(idx=0))
        ], self._out_spec)
