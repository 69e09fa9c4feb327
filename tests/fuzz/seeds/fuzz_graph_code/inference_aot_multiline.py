class <lambda>(torch.nn.Module):
    def forward(
        self,
        arg0_1: "f32[10][1]cuda:0",  # PlainAOTInput(idx=0)
        arg1_1: "f32[10][1]cuda:0",  # PlainAOTInput(idx=1)
    ):
        # Annotation: {'compile_with_inductor': 0} File: /home/user/demo/scenario.py:57 in fn, code: mul = sin * y
        mul: "f32[10][1]cuda:0" = torch.ops.aten.mul.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None

        # Annotation: {'compile_with_inductor': 0} File: /home/user/demo/scenario.py:58 in fn, code: add = mul + 1
        add: "f32[10][1]cuda:0" = torch.ops.aten.add.Tensor(mul, 1);  mul = None
        return (
            add,  # PlainAOTOutput(idx=0)
        )
