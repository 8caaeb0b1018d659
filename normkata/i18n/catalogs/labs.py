"""Labs: tables, titles and terminal plots (data files keep English keys).

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        # -- labs: tables, titles and terminal plots (data files keep English keys) --------------
        "lab.written": Text("Wrote:", "已写入："),
        "lab.vanishing.title": Text(
            "Activation std and weight-gradient norm per layer (width {width}, gain {gain})",
            "每层的激活标准差与权重梯度范数（宽度 {width}，增益 {gain}）",
        ),
        "lab.vanishing.layer": Text("layer", "层"),
        "lab.vanishing.ratio": Text("std layer {last} / layer 1 = {ratio}", "第 {last} 层 / 第 1 层的标准差 = {ratio}"),
        "lab.variant.none": Text("no norm", "无归一化"),
        "lab.vanishing.col.std": Text("std {v}", "标准差 {v}"),
        "lab.vanishing.col.grad": Text("|grad| {v}", "|grad| {v}"),
        "lab.short.none": Text("none", "无"),
        "lab.short.layernorm": Text("LN", "LN"),
        "lab.short.rmsnorm": Text("RMS", "RMS"),
        "lab.line": Text("{name}: {text}", "{name}：{text}"),
        "lab.look": Text("What to look for:", "看点："),
        "lab.vanishing.look.1": Text(
            "Without a norm the std shrinks about {shrink}× per layer ({first} → {last}): PyTorch's default init "
            "gives each Linear a gain near 1/√3, and tanh is nearly linear for small inputs.",
            "无归一化时，标准差每层约缩小到 {shrink} 倍（{first} → {last}）：PyTorch 默认初始化让每个 Linear "
            "的增益约为 1/√3，而 tanh 在小输入上近似线性。",
        ),
        "lab.vanishing.look.2": Text(
            "With either norm the std stays at {std}, not 1: the norm makes tanh's input unit-variance, and tanh "
            "of a unit-variance Gaussian has std 0.63 (it squashes the tails).",
            "两种归一化下标准差都稳定在 {std}，而不是 1：归一化让 tanh 的输入方差为 1，而方差为 1 的高斯经过 "
            "tanh 后标准差是 0.63（尾部被压扁）。",
        ),
        "lab.vanishing.look.3": Text(
            "The no-norm gradient is flat near {grad} at every layer, about {gap} below the norms: a weight's gradient "
            "is its input (shrunk once per layer going forward) times the gradient from above (shrunk once per "
            "layer going back), so the two shrinkages cancel across layers, and what is left is tiny because the "
            "loss itself sits on an output that has all but vanished.",
            "无归一化时梯度在每一层都平坦地停在 {grad} 附近，比有归一化时低约 {gap}：权重的梯度等于它的输入"
            "（前向每层缩小一次）乘以上游梯度（反向每层缩小一次），两者的缩小在层间相互抵消；剩下的值很小，"
            "是因为损失建立在一个几乎消失的输出上。",
        ),
        "lab.orders": Text("{n} orders of magnitude", "{n} 个数量级"),
        "lab.compare.look.1": Text(
            "A run that diverges draws to huge losses: the second plot leaves it out, so the normed runs' gap "
            "(Post-LN above Pre-LN) can be seen.",
            "发散的运行会把损失画到极大：第二张图去掉了它，"
            "这样才能看出有归一化的各配置之间的差距（Post-LN 高于 Pre-LN）。",
        ),
        "lab.compare.look.2": Text(
            "Pre-LN keeps an identity path from the input to the output, so a larger learning rate stays stable; "
            "Post-LN normalizes that path too and trains slower or less stably without warmup.",
            "Pre-LN 从输入到输出保留一条恒等路径，所以更大的学习率也能稳定；"
            "Post-LN 把这条路径也归一化了，没有 warmup 时训练更慢或更不稳定。",
        ),
        "lab.depth.look.1": Text(
            "Post − Pre > 0 means Post-LN ends with a higher loss; the gap tends to grow with depth without warmup.",
            "Post − Pre 大于 0 表示 Post-LN 的最终损失更高；没有 warmup 时，这个差距通常随深度增大。",
        ),
        "lab.precision.look.1": Text(
            "fp16 overflows above 65504 (so 300² is already inf) and bf16 keeps fp32's range but only 8 bits of "
            "mantissa: that is why norms take their statistic in float32.",
            "fp16 超过 65504 就溢出（所以 300² 已经是 inf），bf16 保留 fp32 的范围却只有 8 位尾数："
            "这就是归一化要在 float32 中计算统计量的原因。",
        ),
        "lab.plot.same": Text(
            "{names} coincide (within {pct} of the plot's height): drawn one over the other, see the table.",
            "{names} 几乎重合（相差不到图高的 {pct}）：相互覆盖，请看表格。",
        ),
        "lab.plot.and": Text(" and ", "与"),
        "lab.plot.normed": Text(
            "training loss at lr {lr}, normed runs only", "学习率 {lr} 下的训练损失（仅有归一化的配置）"
        ),
        "lab.variant.layernorm": Text("LayerNorm", "LayerNorm"),
        "lab.variant.rmsnorm": Text("RMSNorm", "RMSNorm"),
        "lab.compare.title": Text(
            "Final training loss after {steps} steps (✗ did not converge, NaN@k diverged at step k)",
            "训练 {steps} 步后的最终损失（✗ 未收敛，NaN@k 表示第 k 步发散）",
        ),
        "lab.compare.config": Text("configuration", "配置"),
        "lab.compare.stable": Text("stable up to", "最大稳定学习率"),
        "lab.compare.first_nan": Text("first NaN", "首次 NaN"),
        "lab.depth.title": Text(
            "Pre-LN vs Post-LN, lr {lr} without warmup, {steps} steps",
            "Pre-LN 与 Post-LN：学习率 {lr}，无 warmup，{steps} 步",
        ),
        "lab.depth.layers": Text("layers", "层数"),
        "lab.depth.pre": Text("Pre-LN final loss", "Pre-LN 最终损失"),
        "lab.depth.post": Text("Post-LN final loss", "Post-LN 最终损失"),
        "lab.precision.title": Text("Low precision in numbers", "低精度的具体数值"),
        "lab.precision.what": Text("what", "内容"),
        "lab.precision.why": Text("why it matters", "为什么重要"),
        "lab.prec.max": Text("largest finite value", "最大有限值"),
        "lab.prec.max.note": Text(
            "fp16 has 5 exponent bits, bf16 fp32's 8", "fp16 有 5 位指数，bf16 与 fp32 一样有 8 位"
        ),
        "lab.prec.tiny": Text("smallest normal value", "最小正规格化数"),
        "lab.prec.tiny.note": Text("below it: subnormals, then 0", "再往下是非规格化数，然后是 0"),
        "lab.prec.eps": Text("machine epsilon (step at 1.0)", "机器精度（1.0 处的步长）"),
        "lab.prec.eps.note": Text("bf16 keeps 7 mantissa bits, fp16 10", "bf16 保留 7 位尾数，fp16 有 10 位"),
        "lab.prec.square": Text("300² (the Pre-Norm document)", "300²（Pre-Norm 文档中的例子）"),
        "lab.prec.square.note": Text("fp16: 90000 ≥ 65520 rounds to inf", "fp16：90000 ≥ 65520，舍入为 inf"),
        "lab.prec.naive": Text("naive RMSNorm of a row of 300s (true: 1)", "朴素 RMSNorm 作用于一行 300（真值为 1）"),
        "lab.prec.naive.note": Text("x · rsqrt(inf) = 0: the signal is wiped out", "x · rsqrt(inf) = 0：信号被清零"),
        "lab.prec.upcast": Text("RMSNorm with fp32 upcast, same row", "先升到 fp32 的 RMSNorm，同一行"),
        "lab.prec.upcast.note": Text("x.float() before squaring fixes it", "平方之前调用 x.float() 即可解决"),
        "lab.prec.eps_stored": Text("eps {eps} stored", "存储 eps {eps}"),
        "lab.prec.eps_stored.note": Text("fp16's smallest subnormal is ~5.96e-8", "fp16 最小的非规格化数约为 5.96e-8"),
        "lab.prec.eps_zero": Text("naive RMSNorm of a zero row, eps {eps}", "朴素 RMSNorm 作用于全零行，eps {eps}"),
        "lab.prec.eps_zero.note": Text(
            "0 is right; NaN means eps became 0 (0 · rsqrt(0))",
            "0 是对的；NaN 表示 eps 变成了 0（0 · rsqrt(0)）",
        ),
        "lab.prec.swamp": Text("sum of 4096 squares, one add at a time (÷ exact)", "逐个累加 4096 个平方（÷ 精确值）"),
        "lab.prec.swamp.note": Text(
            "the sum stalls once it dwarfs each term: accumulate in fp32",
            "总和远大于每一项后就停止增长：应在 fp32 中累加",
        ),
        "lab.prec.cancel": Text(
            "fp32 one-pass variance at mean 1000: max error", "均值 1000 时 fp32 单遍方差的最大误差"
        ),
        "lab.prec.cancel.note": Text(
            "E[x²] − E[x]² loses its digits; two-pass error is ~1e-6",
            "E[x²] − E[x]² 丢失有效数字；两遍法的误差约为 1e-6",
        ),
        "lab.prec.yours": Text("your RMSNorm on the row of 300s (true: 1)", "你的 RMSNorm 作用于一行 300（真值为 1）"),
        "lab.prec.yours.note": Text("from your workspace's rmsnorm.py", "来自你工作区的 rmsnorm.py"),
        "lab.bench.title": Text(
            # Two lines: one line wrapped at 80 columns split "10.2 / GB/s".
            "RMSNorm vs LayerNorm on {shape} {dtype} ({device})\nmemory copy: {copy} GB/s",
            "RMSNorm 与 LayerNorm：{shape} {dtype}（{device}）\n内存拷贝 {copy} GB/s",
        ),
        "lab.bench.implementation": Text("implementation", "实现"),
        "lab.bench.forward": Text("fwd ms\nmedian", "前向 ms\n中位数"),
        "lab.bench.backward": Text("bwd ms\nmedian", "反向 ms\n中位数"),
        "lab.bench.iqr": Text("ms\nIQR", "ms\n四分位距"),
        "lab.bench.copy": Text("% copy", "占拷贝 %"),
        "lab.bench.summary": Text(
            "On this machine torch's RMSNorm takes {fwd}× LayerNorm's time forward and {bwd}× backward "
            "(the MiniMind code walkthrough, MiniMind-small on a GPU: 0.91× and 0.89×).",
            "在这台机器上，torch 的 RMSNorm 前向耗时是 LayerNorm 的 {fwd} 倍，反向是 {bwd} 倍"
            "（《Normalization 代码导读》中 MiniMind-small 在 GPU 上为 0.91 倍和 0.89 倍）。",
        ),
        "lab.bench.skipped": Text("{owner} {cls} skipped: {why}", "跳过 {owner} 的 {cls}：{why}"),
        "lab.bench.failing": Text("✗ fails kata {score}", "✗ 未通过 {score}"),
        "lab.bench.failing.note": Text(
            "Rows marked ✗ come from files that fail their kata: a wrong kernel's speed means nothing.",
            "标 ✗ 的行来自未通过练习的文件：错误实现的速度没有比较意义。",
        ),
        "lab.bench.ungraded": Text("? not graded", "? 未能评分"),
        "lab.bench.noisy": Text(
            "Too noisy to trust: {count} of {total} timings still varied more than {pct}% (IQR / median) "
            "after {cap} s each. Close other programs and run again.",
            "机器太忙，结果不可信：{total} 项计时中有 {count} 项在各计时 {cap} 秒后波动仍超过 {pct}%"
            "（四分位距 / 中位数）。请关闭其他程序后重试。",
        ),
        "lab.plot.activation std per layer": Text("activation std per layer", "每层激活标准差"),
        "lab.plot.weight-gradient norm per layer": Text("weight-gradient norm per layer", "每层权重梯度范数"),
        "lab.plot.training loss by depth": Text("training loss by depth", "不同深度的训练损失"),
        "lab.plot.training loss at lr": Text("training loss at lr {lr}", "学习率 {lr} 下的训练损失"),
        "lab.legend.none": Text("no norm", "无归一化"),
        "lab.legend.no norm": Text("no norm", "无归一化"),
        "lab.legend.depth": Text("{placement}-LN, {depth} layers", "{placement}-LN，{depth} 层"),
        "lab.bench.timing": Text("timing…", "正在计时…"),
        "lab.axis.layer": Text("layer", "层"),
        "lab.axis.step": Text("step", "训练步"),
        "lab.axis.loss": Text("loss", "损失"),
        "lab.axis.std": Text("std", "标准差"),
        "lab.axis.|grad|": Text("|grad|", "|grad|"),
        "lab.axis.log": Text("{label} (log scale)", "{label}（对数坐标）"),
    },
)
