"""Fixtures written as small edits to a correct implementation: the edit is the bug.

Each entry: kata, name, expectation (as a fixture file's first line), what the edit does, the
correct implementation it starts from ("solution" or a fixture name), and (old, new) text
replacements. test_fixtures.py applies them and grades the result like any learner file.
"""

from __future__ import annotations

MUTANTS = [
    (
        "rmsnorm",
        "buggy_detached",
        "fail",
        "cuts the graph with .detach()",
        "correct_cs336_style",
        [
            (
                "        in_dtype = x.dtype\n        x = x.to(torch.float32)\n",
                "        in_dtype = x.dtype\n        x = x.detach().to(torch.float32)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_eps_outside_sqrt",
        "fail diagnosis=rms-eps-outside-sqrt",
        "eps outside the square root",
        "correct_cs336_style",
        [
            (
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n",
                "        x = x.to(torch.float32)\n        rms = 1 / (x.pow(2).mean(-1, keepdim=True).sqrt() + self.eps)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_ignores_weight",
        "fail diagnosis=rms-ignores-weight",
        "forgets the gain",
        "correct_cs336_style",
        [
            (
                "        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n        return (self.weight * (x * rms)).to(in_dtype)\n",
                "        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n        return (x * rms).to(in_dtype)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_no_eps",
        "fail diagnosis=rms-no-eps",
        "no eps at all: all-zero rows become NaN",
        "correct_cs336_style",
        [
            (
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n",
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True))\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_no_keepdim",
        "fail diagnosis=rms-missing-keepdim",
        "mean without keepdim: shape errors",
        "correct_cs336_style",
        [
            (
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n",
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1) + self.eps)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_no_upcast",
        "fail diagnosis=rms-no-fp32-upcast",
        "computes in the input dtype",
        "correct_cs336_style",
        [
            ("        in_dtype = x.dtype\n        x = x.to(torch.float32)\n", "        in_dtype = x.dtype\n"),
        ],
    ),
    (
        "rmsnorm",
        "buggy_returns_fp32",
        "fail",
        "never casts back to the input dtype",
        "correct_cs336_style",
        [
            (
                "        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n        return (self.weight * (x * rms)).to(in_dtype)\n",
                "        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n        return self.weight * (x * rms)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_subtracts_mean",
        "fail diagnosis=rms-subtracts-mean",
        "centres x first, as LayerNorm does",
        "correct_cs336_style",
        [
            (
                "        x = x.to(torch.float32)\n",
                "        x = x.to(torch.float32)\n        x = x - x.mean(-1, keepdim=True)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_sum_of_squares",
        "fail diagnosis=rms-sum-not-mean",
        "sum instead of mean",
        "correct_cs336_style",
        [
            (
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n",
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + self.eps)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_uses_torch_rms_norm",
        "fail",
        "calls the forbidden F.rms_norm",
        "correct_cs336_style",
        [
            (
                "    def forward(self, x):\n        in_dtype = x.dtype\n        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n        return (self.weight * (x * rms)).to(in_dtype)\n",
                "    def forward(self, x):\n        return torch.nn.functional.rms_norm(x, (x.shape[-1],), self.weight, self.eps)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_weight_not_parameter",
        "fail",
        "weight is a plain tensor: not in state_dict, not trained",
        "correct_cs336_style",
        [
            (
                "        super().__init__()\n        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))\n",
                "        super().__init__()\n        self.weight = torch.ones(hidden_size, device=device, dtype=dtype)\n",
            ),
        ],
    ),
    (
        "rmsnorm",
        "buggy_wrong_axis",
        "fail diagnosis=rms-wrong-axis",
        "statistics over dim 0",
        "correct_cs336_style",
        [
            (
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)\n",
                "        x = x.to(torch.float32)\n        rms = torch.rsqrt(x.pow(2).mean(0, keepdim=True) + self.eps)\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_affine_flag_ignored",
        "fail",
        "elementwise_affine=False still creates parameters",
        "correct_two_pass",
        [
            (
                "        self.elementwise_affine = elementwise_affine\n        self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype)) if elementwise_affine else None\n        self.bias = (\n            nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if elementwise_affine and bias else None\n        )\n",
                "        self.elementwise_affine = elementwise_affine\n        self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype))\n        self.bias = nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if bias else None\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_batch_axis",
        "fail diagnosis=ln-batch-axis",
        "statistics over the batch dim, BatchNorm-style",
        "correct_two_pass",
        [
            (
                "        flat = x.float().reshape(*lead, math.prod(self.normalized_shape))\n        mean = flat.mean(-1, keepdim=True)\n",
                "        flat = x.float().reshape(*lead, math.prod(self.normalized_shape))\n        mean = flat.mean(0, keepdim=True)\n",
            ),
            (
                "        centred = flat - mean\n        var = (centred * centred).mean(-1, keepdim=True)\n",
                "        centred = flat - mean\n        var = (centred * centred).mean(0, keepdim=True)\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_bias_flag_ignored",
        "fail",
        "bias=False still creates a bias",
        "correct_two_pass",
        [
            (
                "        self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype)) if elementwise_affine else None\n        self.bias = (\n            nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if elementwise_affine and bias else None\n        )\n",
                "        self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype)) if elementwise_affine else None\n        self.bias = nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if elementwise_affine else None\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_eps_outside_sqrt",
        "fail diagnosis=ln-eps-outside-sqrt",
        "eps outside the root",
        "correct_two_pass",
        [
            (
                "        var = (centred * centred).mean(-1, keepdim=True)\n        y = (centred * torch.rsqrt(var + self.eps)).reshape(x.shape)\n",
                "        var = (centred * centred).mean(-1, keepdim=True)\n        y = (centred / (var.sqrt() + self.eps)).reshape(x.shape)\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_last_dim_only",
        "fail diagnosis=ln-last-dim-only",
        "ignores all but the last normalized dim",
        "correct_two_pass",
        [
            ("import math\n", ""),
            (
                "    def forward(self, x):\n        lead = x.shape[: x.dim() - len(self.normalized_shape)]\n        flat = x.float().reshape(*lead, math.prod(self.normalized_shape))\n",
                "    def forward(self, x):\n        flat = x.float()\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_no_affine",
        "fail diagnosis=ln-ignores-affine",
        "never applies weight and bias",
        "correct_two_pass",
        [
            (
                "        y = (centred * torch.rsqrt(var + self.eps)).reshape(x.shape)\n        if self.weight is not None:\n            y = y * self.weight\n        if self.bias is not None:\n            y = y + self.bias\n",
                "        y = (centred * torch.rsqrt(var + self.eps)).reshape(x.shape)\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_one_pass_variance",
        "fail",
        "E[x²] - E[x]²: cancels at mean 1000",
        "correct_two_pass",
        [
            (
                "        centred = flat - mean\n        var = (centred * centred).mean(-1, keepdim=True)\n",
                "        centred = flat - mean\n        var = (flat * flat).mean(-1, keepdim=True) - mean * mean\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_unbiased_variance",
        "fail diagnosis=ln-unbiased-variance",
        "torch.var's default: divides by n - 1",
        "correct_two_pass",
        [
            (
                "        centred = flat - mean\n        var = (centred * centred).mean(-1, keepdim=True)\n",
                "        centred = flat - mean\n        var = flat.var(-1, keepdim=True)\n",
            ),
        ],
    ),
    (
        "layernorm",
        "buggy_uses_torch_layer_norm",
        "fail",
        "calls the forbidden F.layer_norm",
        "correct_two_pass",
        [
            (
                "    def forward(self, x):\n",
                "    def forward(self, x):\n        return nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)\n\n    def _unused(self, x):\n",
            ),
        ],
    ),
    (
        "layernorm",
        "correct_std_based",
        "pass",
        "std(correction=0) squared for the variance: gradients stay finite on a constant row in torch 2.13",
        "correct_two_pass",
        [
            (
                "        centred = flat - mean\n        var = (centred * centred).mean(-1, keepdim=True)\n",
                "        centred = flat - mean\n        var = flat.std(-1, correction=0, keepdim=True) ** 2\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_biased_running_var",
        "fail diagnosis=bn-biased-running-var",
        "running_var fed the biased variance",
        "solution",
        [
            (
                "            if self.training and self.track_running_stats:\n                self._update_running_stats(mean, var * n / (n - 1))  # the estimate uses the unbiased one\n",
                "            if self.training and self.track_running_stats:\n                self._update_running_stats(mean, var)  # the estimate uses the unbiased one\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_eval_uses_batch_stats",
        "fail diagnosis=bn-eval-uses-batch-stats",
        "ignores self.training for the statistics",
        "solution",
        [
            (
                "        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n        if self.training or not self.track_running_stats:\n",
                "        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n        if True:\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_float_counter",
        "fail",
        "num_batches_tracked is a float buffer",
        "solution",
        [
            (
                '            self.register_buffer("running_var", torch.ones(num_features, **factory))\n            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))\n',
                '            self.register_buffer("running_var", torch.ones(num_features, **factory))\n            self.register_buffer("num_batches_tracked", torch.tensor(0.0, device=device))\n',
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_keras_momentum",
        "fail diagnosis=bn-keras-momentum",
        "momentum weighs the old value",
        "solution",
        [
            (
                "        self.num_batches_tracked += 1\n        factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum\n",
                "        self.num_batches_tracked += 1\n        factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else 1 - self.momentum\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_no_batch_counter",
        "fail",
        "no num_batches_tracked buffer (momentum=None cannot work)",
        "solution",
        [
            (
                '            self.register_buffer("running_var", torch.ones(num_features, **factory))\n            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))\n',
                '            self.register_buffer("running_var", torch.ones(num_features, **factory))\n',
            ),
            (
                '            self.register_buffer("running_var", None)\n            self.register_buffer("num_batches_tracked", None)\n',
                '            self.register_buffer("running_var", None)\n',
            ),
            (
                "    def _update_running_stats(self, mean: torch.Tensor, unbiased_var: torch.Tensor) -> None:\n        self.num_batches_tracked += 1\n        factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum\n",
                "    def _update_running_stats(self, mean: torch.Tensor, unbiased_var: torch.Tensor) -> None:\n        factor = self.momentum if self.momentum is not None else 0.1\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_no_single_value_check",
        "fail",
        "returns NaN-free zeros instead of raising for one value per channel",
        "solution",
        [
            (
                '            n = x.numel() // x.shape[1]\n            if self.training and n <= 1:\n                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")\n',
                "            n = x.numel() // x.shape[1]\n            n = max(n, 2)\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_stats_over_n_only",
        "fail diagnosis=bn-stats-over-n-only",
        "(N, C, L): reduces over N only",
        "solution",
        [
            (
                '            raise ValueError(f"expected 2D or 3D input (got {x.dim()}D input)")\n        dims = (0,) if x.dim() == 2 else (0, 2)  # everything but the channel dim\n',
                '            raise ValueError(f"expected 2D or 3D input (got {x.dim()}D input)")\n        dims = (0,)\n',
            ),
            (
                '                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")\n            mean, var = h.mean(dims), h.var(dims, unbiased=False)  # the output uses the biased variance\n',
                '                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")\n            mean, var = (\n                h.mean(dims, keepdim=x.dim() == 3).squeeze(0),\n                h.var(dims, unbiased=False, keepdim=x.dim() == 3).squeeze(0),\n            )  # the output uses the biased variance\n',
            ),
            (
                "            if self.training and self.track_running_stats:\n                self._update_running_stats(mean, var * n / (n - 1))  # the estimate uses the unbiased one\n",
                "            if self.training and self.track_running_stats:\n                self._update_running_stats(\n                    mean.reshape(mean.shape[0], -1).mean(-1), (var * n / (n - 1)).reshape(var.shape[0], -1).mean(-1)\n                )  # the estimate uses the unbiased one\n",
            ),
            (
                "            mean, var = self.running_mean.to(h.dtype), self.running_var.to(h.dtype)\n        y = (h - mean.view(shape)) * torch.rsqrt(var.view(shape) + self.eps)\n",
                "            mean, var = self.running_mean.to(h.dtype), self.running_var.to(h.dtype)\n        if mean.dim() == 1:\n            mean, var = mean.view(shape), var.view(shape)\n        y = (h - mean) * torch.rsqrt(var + self.eps)\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_unbiased_output",
        "fail diagnosis=bn-unbiased-output",
        "normalizes the batch with the unbiased variance",
        "solution",
        [
            (
                '                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")\n            mean, var = h.mean(dims), h.var(dims, unbiased=False)  # the output uses the biased variance\n',
                '                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")\n            mean, var = h.mean(dims), h.var(dims, unbiased=True)  # the output uses the biased variance\n',
            ),
            (
                "            if self.training and self.track_running_stats:\n                self._update_running_stats(mean, var * n / (n - 1))  # the estimate uses the unbiased one\n",
                "            if self.training and self.track_running_stats:\n                self._update_running_stats(mean, var)  # the estimate uses the unbiased one\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "buggy_updates_in_eval",
        "fail",
        "running statistics also move in eval mode",
        "solution",
        [
            (
                "                self._update_running_stats(mean, var * n / (n - 1))  # the estimate uses the unbiased one\n        else:\n",
                "                self._update_running_stats(mean, var * n / (n - 1))  # the estimate uses the unbiased one\n        else:\n            n = x.numel() // x.shape[1]\n            self._update_running_stats(h.mean(dims), h.var(dims, unbiased=True))\n",
            ),
        ],
    ),
    (
        "batchnorm",
        "correct_reference_copy",
        "pass",
        "the reference, as a learner might copy it from the docs",
        "solution",
        [],
    ),
    (
        "prenorm",
        "buggy_detached_residual",
        "fail",
        "detaches the residual: gradients stop flowing down the stream",
        "solution",
        [
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x.detach() + self.attn(self.norm1(x))\n",
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_eps_not_passed",
        "fail diagnosis=pn-eps-not-passed",
        "norms built with their default eps",
        "solution",
        [
            (
                '    if norm == "rmsnorm":\n        return nn.RMSNorm(d_model, eps=eps)\n',
                '    if norm == "rmsnorm":\n        return nn.RMSNorm(d_model)\n',
            ),
            (
                '    if norm == "layernorm":\n        return nn.LayerNorm(d_model, eps=eps)\n',
                '    if norm == "layernorm":\n        return nn.LayerNorm(d_model)\n',
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_no_final_norm",
        "fail diagnosis=pn-no-final-norm",
        "forgets final_norm in forward",
        "solution",
        [
            (
                "            x = block(x)\n        return self.final_norm(x)\n",
                "            x = block(x)\n        return x\n",
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_no_residual",
        "fail",
        "drops the residual connections",
        "solution",
        [
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm2(x))\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = self.attn(self.norm1(x))\n        x = self.ffn(self.norm2(x))\n",
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_norm_choice_ignored",
        "fail",
        "always RMSNorm, whatever norm= says",
        "solution",
        [
            (
                'def make_norm(norm: str, d_model: int, eps: float) -> nn.Module:\n    if norm == "rmsnorm":\n',
                'def make_norm(norm: str, d_model: int, eps: float) -> nn.Module:\n    if norm in ("rmsnorm", "layernorm"):\n',
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_normalized_residual",
        "fail diagnosis=pn-normalized-residual",
        "adds the normalized x back",
        "solution",
        [
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm2(x))\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = self.norm1(x)\n        x = x + self.attn(x)\n        x = self.norm2(x)\n        x = x + self.ffn(x)\n",
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_post_norm",
        "fail diagnosis=pn-post-norm",
        "Post-Norm wiring",
        "solution",
        [
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm2(x))\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = self.norm1(x + self.attn(x))\n        x = self.norm2(x + self.ffn(x))\n",
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_shared_norm",
        "fail diagnosis=pn-shared-norm",
        "norm1 before both sublayers",
        "solution",
        [
            (
                "        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm2(x))\n",
                "        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm1(x))\n",
            ),
        ],
    ),
    (
        "prenorm",
        "buggy_submodule_names",
        "fail",
        "ln_1/ln_2 instead of norm1/norm2",
        "solution",
        [
            (
                "        super().__init__()\n        self.norm1 = make_norm(norm, d_model, eps)\n",
                "        super().__init__()\n        self.ln_1 = make_norm(norm, d_model, eps)\n",
            ),
            (
                "        self.attn = CausalSelfAttention(d_model, n_heads)\n        self.norm2 = make_norm(norm, d_model, eps)\n",
                "        self.attn = CausalSelfAttention(d_model, n_heads)\n        self.ln_2 = make_norm(norm, d_model, eps)\n",
            ),
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm2(x))\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.ln_1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.ln_2(x))\n",
            ),
        ],
    ),
    (
        "prenorm",
        "correct_explicit_residuals",
        "pass",
        "the CS336-style block with named residual variables",
        "solution",
        [
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x + self.attn(self.norm1(x))  # the residual stream itself is never normalized\n        x = x + self.ffn(self.norm2(x))\n        return x\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        residual = x\n        h = self.attn(self.norm1(x))\n        x = residual + h\n        residual = x\n        h = self.ffn(self.norm2(x))\n        return residual + h\n",
            ),
        ],
    ),
    (
        "prenorm",
        "correct_own_rmsnorm",
        "pass",
        "its own RMSNorm (from the first kata) instead of nn.RMSNorm",
        "solution",
        [
            (
                "        return self.down(F.gelu(self.up(x)))\n\n\n",
                "        return self.down(F.gelu(self.up(x)))\n\n\nclass RMSNorm(nn.Module):\n    def __init__(self, d, eps):\n        super().__init__()\n        self.eps = eps\n        self.weight = nn.Parameter(torch.ones(d))\n\n    def forward(self, x):\n        h = x.float()\n        return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight\n\n\n",
            ),
            (
                '    if norm == "rmsnorm":\n        return nn.RMSNorm(d_model, eps=eps)\n',
                '    if norm == "rmsnorm":\n        return RMSNorm(d_model, eps)\n',
            ),
        ],
    ),
    ('fused_add_rmsnorm', 'eps_outside_sqrt', 'fail diagnosis=far-eps-outside-sqrt', 'Divides by rms + eps.', 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        orig_dtype = x.dtype\n', ''), ('        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        h = s / (s.pow(2).mean(-1, keepdim=True).sqrt() + self.eps)\n        return h.to(x.dtype) * self.weight, s.to(residual.dtype)\n')]),
    ('fused_add_rmsnorm', 'hf_add_then_norm', 'fail diagnosis=far-rounded-sum', 'Hugging Face decoder-layer order: add in the input dtype, then an RMSNorm that upcasts the rounded sum.', 'correct_engine_style', [('        orig_dtype = x.dtype\n        s = x.float() + residual.float()\n        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        hidden_states = residual + x\n        residual = hidden_states\n        input_dtype = hidden_states.dtype\n        hidden_states = hidden_states.to(torch.float32)\n        variance = hidden_states.pow(2).mean(-1, keepdim=True)\n        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)\n        return self.weight * hidden_states.to(input_dtype), residual\n')]),
    ('fused_add_rmsnorm', 'inplace_alias', 'fail message=the new residual differs from the reference', 'Engine style with in-place ops: for float32 input, .to(float32) returns x itself, so the returned residual', 'correct_engine_style', [('        s = x.float() + residual.float()\n', '        s = x.to(torch.float32).add_(residual.to(torch.float32))\n'), ('        s = s * torch.rsqrt(variance + self.variance_epsilon)\n', '        s.mul_(torch.rsqrt(variance + self.variance_epsilon))\n')]),
    ('fused_add_rmsnorm', 'no_fp32_upcast', 'fail diagnosis=far-no-fp32-upcast', 'Everything in the input dtype: right in fp32, the square of 300 overflows in fp16.', 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        orig_dtype = x.dtype\n        s = x.float() + residual.float()\n        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        s = x + residual.to(x.dtype)\n        normed = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight\n        return normed, s.to(residual.dtype)\n')]),
    ('fused_add_rmsnorm', 'normalizes_x', 'fail diagnosis=far-normalizes-x', 'Adds for the residual but normalizes the sublayer output alone.', 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        orig_dtype = x.dtype\n', ''), ('        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        h = x.float()\n        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)\n        return h.to(x.dtype) * self.weight, s.to(residual.dtype)\n')]),
    ('fused_add_rmsnorm', 'residual_in_input_dtype', 'pass', "Sum in float32, the new residual cast to x's dtype, as vLLM's forward_native and SGLang return it (x and residual share a dtype).", 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        residual = s.to(orig_dtype)\n        s = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + self.eps)\n        return s.to(orig_dtype) * self.weight, residual\n')]),
    ('fused_add_rmsnorm', 'returns_normed_only', 'fail message=expected a tuple (normed, new_residual)', 'A plain RMSNorm of the sum: the caller never gets the new residual.', 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        orig_dtype = x.dtype\n', ''), ('        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        s = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + self.eps)\n        return s.to(x.dtype) * self.weight\n')]),
    ('fused_add_rmsnorm', 'returns_old_residual', 'fail diagnosis=far-returns-old-residual', 'Normalizes the sum correctly but hands back the residual it was given.', 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        orig_dtype = x.dtype\n        s = x.float() + residual.float()\n        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        h = x.float() + residual.float()\n        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)\n        return h.to(x.dtype) * self.weight, residual\n')]),
    ('fused_add_rmsnorm', 'swapped_outputs', 'fail diagnosis=far-swapped-outputs', 'Returns (residual, hidden) as some model code orders them.', 'correct_engine_style', [('        self.variance_epsilon = eps\n', '        self.eps = eps\n'), ('        orig_dtype = x.dtype\n', ''), ('        new_residual = s.to(residual.dtype)\n        variance = s.pow(2).mean(dim=-1, keepdim=True)\n        s = s * torch.rsqrt(variance + self.variance_epsilon)\n        return s.to(orig_dtype) * self.weight, new_residual\n', '        h = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + self.eps)\n        return s.to(residual.dtype), h.to(x.dtype) * self.weight\n')]),
    ('qknorm_attention', 'eps_not_passed', 'fail message=where eps matters', "Qwen3's own default eps (1e-6) hard-coded: the constructor's eps never reaches the norms.", 'correct_qwen3_sdpa', [('        self.q_norm = HeadRMSNorm(self.head_dim, eps=eps)\n        self.k_norm = HeadRMSNorm(self.head_dim, eps=eps)\n', '        self.q_norm = HeadRMSNorm(self.head_dim, eps=1e-6)\n        self.k_norm = HeadRMSNorm(self.head_dim, eps=1e-6)\n')]),
    ('qknorm_attention', 'fused_qkv', 'fail message=the instructions fix these names', 'nanoGPT habit: one qkv Linear instead of q_proj, k_proj, v_proj.', 'correct_qwen3_sdpa', [('        self.q_proj = nn.Linear(d_model, d_model, bias=False)\n        self.k_proj = nn.Linear(d_model, d_model, bias=False)\n        self.v_proj = nn.Linear(d_model, d_model, bias=False)\n', '        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)\n'), ('        q = self.q_norm(self.q_proj(x).view(hidden_shape)).transpose(1, 2)\n        k = self.k_norm(self.k_proj(x).view(hidden_shape)).transpose(1, 2)\n        v = self.v_proj(x).view(hidden_shape).transpose(1, 2)\n', '        q, k, v = self.qkv(x).split(C, dim=-1)\n        q = self.q_norm(q.view(hidden_shape)).transpose(1, 2)\n        k = self.k_norm(k.view(hidden_shape)).transpose(1, 2)\n        v = v.view(hidden_shape).transpose(1, 2)\n')]),
    ('qknorm_attention', 'no_causal_mask', 'fail diagnosis=qk-no-causal-mask', 'SDPA without is_causal: every position sees the whole sequence.', 'correct_qwen3_sdpa', [('        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n', '        y = F.scaled_dot_product_attention(q, k, v)\n')]),
    ('qknorm_attention', 'norm_on_v', 'fail diagnosis=qk-norm-on-v', 'Normalizes the values too, with k_norm.', 'correct_qwen3_sdpa', [('        v = self.v_proj(x).view(hidden_shape).transpose(1, 2)\n', '        v = self.k_norm(self.v_proj(x).view(hidden_shape)).transpose(1, 2)\n')]),
    ('qknorm_attention', 'norm_over_d_model', 'fail diagnosis=qk-norm-over-d-model', "OLMo 2's placement with Qwen3's gains: the statistic is taken over the whole projection, then heads get the gain.", 'correct_qwen3_sdpa', [('        q = self.q_norm(self.q_proj(x).view(hidden_shape)).transpose(1, 2)\n        k = self.k_norm(self.k_proj(x).view(hidden_shape)).transpose(1, 2)\n', '        q, k = self.q_proj(x), self.k_proj(x)\n        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + self.q_norm.variance_epsilon)\n        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + self.k_norm.variance_epsilon)\n        q = (q.view(hidden_shape) * self.q_norm.weight).transpose(1, 2)\n        k = (k.view(hidden_shape) * self.k_norm.weight).transpose(1, 2)\n')]),
    ('qknorm_attention', 'scale_before_norm', 'fail diagnosis=qk-scale-before-norm', 'Pre-scales q as some kernels do, then normalizes it: the scale is gone.', 'correct_qwen3_sdpa', [('        q = self.q_norm(self.q_proj(x).view(hidden_shape)).transpose(1, 2)\n', '        q = self.q_norm(self.q_proj(x).view(hidden_shape) * self.head_dim**-0.5).transpose(1, 2)\n'), ('        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n', '        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0)\n')]),
    ('qknorm_attention', 'shared_norm', 'fail diagnosis=qk-shared-norm', 'Copy-paste slip: k goes through q_norm.', 'correct_qwen3_sdpa', [('        k = self.k_norm(self.k_proj(x).view(hidden_shape)).transpose(1, 2)\n', '        k = self.q_norm(self.k_proj(x).view(hidden_shape)).transpose(1, 2)\n')]),
    ('qknorm_attention', 'uses_nn_rmsnorm', 'fail message=rms_norm', 'nn.RMSNorm for q_norm and k_norm: it calls F.rms_norm, forbidden here.', 'correct_qwen3_sdpa', [('        self.q_norm = HeadRMSNorm(self.head_dim, eps=eps)\n        self.k_norm = HeadRMSNorm(self.head_dim, eps=eps)\n', '        self.q_norm = nn.RMSNorm(self.head_dim, eps=eps)\n        self.k_norm = nn.RMSNorm(self.head_dim, eps=eps)\n')]),
    ('batchnorm', 'buggy_eps_ignored', 'fail diagnosis=bn-eps-ignored', 'eps is stored but the forward keeps the default 1e-5: BatchNorm1d(C, eps=0.1) behaves as eps=1e-5', 'solution', [('        y = (h - mean.view(shape)) * torch.rsqrt(var.view(shape) + self.eps)\n', '        y = (h - mean.view(shape)) * torch.rsqrt(var.view(shape) + 1e-5)\n')]),
    ('groupnorm', 'no_attributes_without_affine', 'fail message=should be None', 'affine=False leaves weight and bias undefined; the instructions say they are None, as nn.GroupNorm\'s.', 'solution', [('        else:\n            self.register_parameter("weight", None)\n            self.register_parameter("bias", None)\n', ''), ('        if self.weight is not None:\n', '        if self.affine:\n')]),
    ('welford', 'merge_raises', 'fail message=in merge', 'merge reads a private attribute the other object does not have: the error is reported where it happened, in merge, not "in forward".', 'solution', [('        self._combine(other.count, other._mean, other._m2)\n', '        self._combine(other.count, other._mean, other.m2)\n')]),
    ('dyt', 'bias_at_ones', 'fail diagnosis=dyt-bias-at-ones', 'The bias starts at ones, as in a public DyT implementation.', 'correct_paper_style', [('            self.bias = nn.Parameter(torch.zeros(normalized_shape, device=device, dtype=dtype))\n', '            self.bias = nn.Parameter(torch.ones(normalized_shape, device=device, dtype=dtype))\n')]),
    ('dyt', 'weight_inside_tanh', 'fail diagnosis=dyt-weight-inside-tanh', 'gamma multiplies inside tanh: the output is bounded by 1 around the bias.', 'correct_paper_style', [('        x = torch.tanh(self.alpha * x)\n        x = x * self.weight\n', '        x = torch.tanh(self.alpha * x * self.weight)\n')]),
    ('dyt', 'bias_inside_tanh', 'fail diagnosis=dyt-bias-inside-tanh', 'beta is added before tanh, then the result is scaled.', 'correct_paper_style', [('        x = torch.tanh(self.alpha * x)\n        x = x * self.weight\n        if self.bias is not None:\n            x = x + self.bias\n', '        if self.bias is not None:\n            x = x + self.bias / self.alpha\n        x = torch.tanh(self.alpha * x)\n        x = x * self.weight\n')]),
    ('dyt', 'no_alpha', 'fail diagnosis=dyt-no-alpha', 'alpha is created but the forward computes tanh(x).', 'correct_paper_style', [('        x = torch.tanh(self.alpha * x)\n        x = x * self.weight\n', '        x = torch.tanh(x)\n        x = x * self.weight\n')]),
    ('dyt', 'alpha_float', 'fail diagnosis=dyt-alpha-not-learnable', 'alpha kept as a Python float: never learned, never loaded.', 'correct_paper_style', [('        self.alpha = nn.Parameter(torch.ones(1, device=device, dtype=dtype) * alpha_init)\n', '        self.alpha = alpha_init\n')]),
    ('dyt', 'alpha_buffer', 'fail diagnosis=dyt-alpha-not-learnable', 'alpha registered as a buffer: it loads, but gets no gradient.', 'correct_paper_style', [('        self.alpha = nn.Parameter(torch.ones(1, device=device, dtype=dtype) * alpha_init)\n', '        self.register_buffer("alpha", torch.ones(1, device=device, dtype=dtype) * alpha_init)\n')]),
    ('dyt', 'alpha_per_channel', 'fail diagnosis=dyt-alpha-per-channel', "One alpha per channel: the authors' (1,)-shaped alpha no longer loads.", 'correct_paper_style', [('        self.alpha = nn.Parameter(torch.ones(1, device=device, dtype=dtype) * alpha_init)\n', '        self.alpha = nn.Parameter(torch.ones(normalized_shape, device=device, dtype=dtype) * alpha_init)\n')]),
    ('dyt', 'alpha_init_ignored', 'fail diagnosis=dyt-alpha-init-ignored', "The paper's default 0.5 hard-coded: alpha_init never reaches alpha.", 'correct_paper_style', [('        self.alpha = nn.Parameter(torch.ones(1, device=device, dtype=dtype) * alpha_init)\n', '        self.alpha = nn.Parameter(torch.ones(1, device=device, dtype=dtype) * 0.5)\n')]),
    ('sandwich_block', 'norm_after_add', 'fail diagnosis=sw-norm-after-add', "The output norms moved after the residual add: a Post-LN stream with Gemma's names.", 'correct_gemma_style', [('        hidden_states = self.post_attention_layernorm(hidden_states)\n        hidden_states = residual + hidden_states\n', '        hidden_states = residual + hidden_states\n        hidden_states = self.post_attention_layernorm(hidden_states)\n'), ('        hidden_states = self.post_feedforward_layernorm(hidden_states)\n        hidden_states = residual + hidden_states\n', '        hidden_states = residual + hidden_states\n        hidden_states = self.post_feedforward_layernorm(hidden_states)\n')]),
    ('sandwich_block', 'no_output_norms', 'fail diagnosis=sw-no-output-norms', "Llama's Pre-Norm habit: the post norms are created but never called.", 'correct_gemma_style', [('        hidden_states = self.post_attention_layernorm(hidden_states)\n', ''), ('        hidden_states = self.post_feedforward_layernorm(hidden_states)\n', '')]),
    ('sandwich_block', 'olmo2_placement', 'fail diagnosis=sw-no-input-norms', "OLMo 2's placement under Gemma's names: only the outputs are normalized.", 'correct_gemma_style', [('        hidden_states = self.input_layernorm(hidden_states)\n', ''), ('        hidden_states = self.pre_feedforward_layernorm(hidden_states)\n', '')]),
    ('sandwich_block', 'pre_ff_not_called', 'fail diagnosis=sw-pre-ff-not-called', 'pre_feedforward_layernorm defined, never called: strict loading still succeeds.', 'correct_gemma_style', [('        hidden_states = self.pre_feedforward_layernorm(hidden_states)\n', '')]),
    ('sandwich_block', 'swapped_attention_norms', 'fail diagnosis=sw-swapped-norms', "input_layernorm and post_attention_layernorm used in each other's place.", 'correct_gemma_style', [('        hidden_states = self.input_layernorm(hidden_states)\n        hidden_states = self.self_attn(hidden_states)\n        hidden_states = self.post_attention_layernorm(hidden_states)\n', '        hidden_states = self.post_attention_layernorm(hidden_states)\n        hidden_states = self.self_attn(hidden_states)\n        hidden_states = self.input_layernorm(hidden_states)\n')]),
    ('sandwich_block', 'normalized_residual', 'fail diagnosis=sw-normalized-residual', 'The residual is taken after the input norm.', 'correct_gemma_style', [('        residual = hidden_states\n        hidden_states = self.input_layernorm(hidden_states)\n', '        hidden_states = self.input_layernorm(hidden_states)\n        residual = hidden_states\n'), ('        residual = hidden_states\n        hidden_states = self.pre_feedforward_layernorm(hidden_states)\n', '        hidden_states = self.pre_feedforward_layernorm(hidden_states)\n        residual = hidden_states\n')]),
    ('sandwich_block', 'eps_not_passed', 'fail diagnosis=sw-eps-not-passed', "The block's norms keep RMSNorm's default eps (1e-6): eps=1e-2 never reaches them.", 'correct_gemma_style', [('        self.input_layernorm = RMSNorm(d_model, eps=eps)\n        self.post_attention_layernorm = RMSNorm(d_model, eps=eps)\n        self.pre_feedforward_layernorm = RMSNorm(d_model, eps=eps)\n        self.post_feedforward_layernorm = RMSNorm(d_model, eps=eps)\n', '        self.input_layernorm = RMSNorm(d_model)\n        self.post_attention_layernorm = RMSNorm(d_model)\n        self.pre_feedforward_layernorm = RMSNorm(d_model)\n        self.post_feedforward_layernorm = RMSNorm(d_model)\n')]),
    ('sandwich_block', 'no_final_norm', 'fail diagnosis=sw-no-final-norm', 'The stack returns the stream as it is: self.norm is created but never called.', 'correct_gemma_style', [('        hidden_states = self.norm(hidden_states)\n', '')]),
]

