class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[1000][1]cuda:0"):
        l_x_ = L_x_

        # File: /home/user/demo/scenario.py:44 in fn, code: return MySin.apply(x) * 3 + 1
        fwd_body_0 = self.fwd_body_0
        bwd_body_0 = self.bwd_body_0
        autograd_function_apply = torch.ops.higher_order.autograd_function_apply(fwd_body_0, bwd_body_0, l_x_, non_differentiable_idx = [], saved_for_backward_idx = [0]);  fwd_body_0 = bwd_body_0 = l_x_ = None
        getitem: "f32[1000][1]cuda:0" = autograd_function_apply[0];  autograd_function_apply = None
        mul: "f32[1000][1]cuda:0" = getitem * 3;  getitem = None
        add: "f32[1000][1]cuda:0" = mul + 1;  mul = None
        return (add,)

    class fwd_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[1000][1]cuda:0"):
            # No stacktrace found for following nodes
            _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None

            # File: /home/user/demo/scenario.py:38 in forward, code: return x.sin()
            outs: "f32[1000][1]cuda:0" = l_x_.sin()

            # No stacktrace found for following nodes
            _set_grad_enabled_1 = torch._C._set_grad_enabled(True);  _set_grad_enabled_1 = None
            return ((outs,), (l_x_,))

    class bwd_body_0(torch.nn.Module):
        def forward(self, g: "f32[1000][1]cuda:0", l_x_: "f32[1000][1]cuda:0"):
            # No stacktrace found for following nodes
            _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None

            # File: /home/user/demo/scenario.py:42 in backward, code: return g * x.cos()
            cos: "f32[1000][1]cuda:0" = l_x_.cos();  l_x_ = None
            mul: "f32[1000][1]cuda:0" = g * cos;  g = cos = None

            # No stacktrace found for following nodes
            _set_grad_enabled_1 = torch._C._set_grad_enabled(True);  _set_grad_enabled_1 = None
            return (mul,)
