"""The categories a grading report groups cases by, in the order it shows them."""

CATEGORIES = (
    "forward fp32",
    "shapes",
    "numerical stability",
    "low precision",
    "gradients",
    "module state",
    "train/eval",
    "CUDA",
)
