"""`normkata lab vanishing|compare|depth|precision` and `normkata bench`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from normkata.ui.groups import SuggestingGroup
from normkata.ui.options import AppState

if TYPE_CHECKING:
    from rich.progress import Progress

    from normkata.labs.common import LabOptions
    from normkata.labs.plots import Plot


def lab_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--device, --seed, --out, --use-mine: shared by every lab."""
    for option in reversed(
        [
            click.option(
                "--device",
                type=click.Choice(("auto", "cpu", "cuda")),
                default="cpu",
                show_default=True,
                help="Where to run; auto picks CUDA when present.",
            ),
            click.option(
                "--seed", type=int, default=0, show_default=True, help="Same seed, same machine: same numbers."
            ),
            click.option(
                "--out",
                type=click.Path(file_okay=False, path_type=Path),
                default=None,
                help="Write PNG plots and the raw numbers (JSON, CSV) here.",
            ),
            click.option("--use-mine", is_flag=True, help="Use your kata RMSNorm/LayerNorm from the workspace."),
        ]
    ):
        fn = option(fn)
    return fn


def _options(device: str, seed: int, out: Path | None, use_mine: bool) -> LabOptions:
    from normkata.labs.common import LabOptions, resolve_device
    from normkata.paths import workspace_dir
    from normkata.threads import configure_threads
    from normkata.ui.options import safe_lang

    configure_threads("lab")  # small models: torch's spinning threads cost more than they give
    state = click.get_current_context().find_object(AppState)
    workspace = workspace_dir(state.workspace if state else None)
    return LabOptions(resolve_device(device), seed, out, use_mine, workspace, safe_lang())


def _finish(
    console: Any,
    options: LabOptions,
    name: str,
    result: dict,
    table: list | None,
    plots: list[Plot],
) -> None:
    """Terminal plots (in the learner's language), then under --out the PNGs (English) and the
    numbers as JSON/CSV; the files listed are the ones this run wrote, nothing older."""
    from rich.markup import escape

    from normkata.i18n import t
    from normkata.labs import plots as draw
    from normkata.labs.common import write_outputs

    lang = options.lang
    written = []
    for plot in plots:
        console.print(draw.terminal(plot, lang, width=min(console.width, 100)))
        if options.out is not None:
            written.append(draw.save_png(plot, options.out))
    written = [*write_outputs(options, name, result, table), *written]
    if written:
        # One path a line, never wrapped: the list must read the same at any terminal width.
        console.print(f"[muted]{escape(t('lab.written', lang))}[/]")
        for path in written:
            console.print(f"  {path}", style="muted", markup=False, soft_wrap=True)


def _progress(console: Any) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


@click.group(cls=SuggestingGroup)
def lab() -> None:
    """Run the source documents' experiments and see the phenomena.

    \b
    Examples:
      normkata lab vanishing
      normkata lab compare --quick --out results/
      normkata lab depth --quick
      normkata lab normfree --quick
      normkata lab precision --use-mine
    """


@lab.command()
@click.option("--layers", type=click.IntRange(min=2), default=10, show_default=True)
@click.option("--width", type=click.IntRange(min=4), default=256, show_default=True)
@click.option(
    "--gain",
    type=click.FloatRange(min=0.01),
    default=1.0,
    show_default=True,
    help="Multiply PyTorch's default Linear init by this.",
)
@lab_options
def vanishing(layers: int, width: int, gain: float, device: str, seed: int, out: Path | None, use_mine: bool) -> None:
    """Activation std and gradient norm per layer, with and without normalization.

    \b
    Example:
      normkata lab vanishing --layers 10 --out results/
    """
    from normkata.labs import vanishing as lab_module
    from normkata.labs.plots import Plot
    from normkata.ui.terminal import make_console

    options, console = _options(device, seed, out, use_mine), make_console()
    result = lab_module.run(options, layers=layers, width=width, gain=gain)
    lab_module.render(console, result, options.lang)
    plots = [
        Plot("vanishing_std", lab_module.series(result, "std"), "activation std per layer", "layer", "std"),
        Plot("vanishing_grad", lab_module.series(result, "grad"), "weight-gradient norm per layer", "layer", "|grad|"),
    ]
    _finish(console, options, "vanishing", result, result["rows"], plots)


def _data_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--data",
        type=click.Path(path_type=Path),
        default=None,
        help="Train on this UTF-8 text file instead of the bundled TinyShakespeare.",
    )(fn)


@lab.command()
@click.option(
    "--quick",
    is_flag=True,
    help="A small model (d_model 64, 2 layers, context 32), 80 steps at 3 learning rates: a first look.",
)
@click.option("--steps", type=click.IntRange(min=2), default=None, help="Training steps per run.")
@click.option(
    "--lr",
    "lrs",
    type=click.FloatRange(min=0, min_open=True),
    multiple=True,
    help="Learning rates to sweep (repeat the option).",
)
@_data_option
@lab_options
def compare(
    quick: bool,
    steps: int | None,
    lrs: tuple[float, ...],
    data: Path | None,
    device: str,
    seed: int,
    out: Path | None,
    use_mine: bool,
) -> None:
    """No norm, Post-LN, Pre-LN + LayerNorm and Pre-LN + RMSNorm on TinyShakespeare, over a learning-rate sweep.

    The full sweep trains a model twice as wide on twice the context for 200 steps per run: run
    --quick first to see the shape of it.

    \b
    Examples:
      normkata lab compare --quick
      normkata lab compare --lr 1e-3 --lr 1e-2 --steps 300 --out results/
    """
    from normkata.labs import compare as lab_module
    from normkata.labs.plots import Plot, without_diverged
    from normkata.ui.terminal import make_console

    options, console = _options(device, seed, out, use_mine), make_console()
    with _progress(console) as progress:
        result = lab_module.run(options, quick=quick, data_path=data, steps=steps, lrs=lrs or None, progress=progress)
    lab_module.render(console, result, options.lang)
    top = max(result["settings"]["lrs"])
    curves = lab_module.curves(result, top)
    plots = [Plot(f"compare_loss_lr{top:g}", curves, f"training loss at lr {top:g}", "step", "loss")]
    # The same runs without the one that diverged or had no norm: on its own axis, the gap
    # between Post-LN and Pre-LN (the point of the experiment) is no longer a flat band.
    normed = {k: v for k, v in without_diverged(curves).items() if k != "no norm"}
    if len(normed) >= 2 and normed.keys() != curves.keys():
        title = f"training loss at lr {top:g}, normed runs only"
        looks = tuple(list(curves).index(label) for label in normed)  # each run keeps its marker and colour
        plots.append(Plot(f"compare_loss_lr{top:g}_normed", normed, title, "step", "loss", looks))
    _finish(console, options, "compare", result, result["summary"], plots)


@lab.command()
@click.option("--quick", is_flag=True, help="Small model and few steps, as `lab compare --quick`.")
@click.option("--steps", type=click.IntRange(min=2), default=None, help="Training steps per run.")
@click.option(
    "--lr",
    "lrs",
    type=click.FloatRange(min=0, min_open=True),
    multiple=True,
    help="Learning rates to sweep (repeat the option).",
)
@_data_option
@lab_options
def normfree(
    quick: bool,
    steps: int | None,
    lrs: tuple[float, ...],
    data: Path | None,
    device: str,
    seed: int,
    out: Path | None,
    use_mine: bool,
) -> None:
    """Pre-LN with LayerNorm, RMSNorm and DyT, and Gemma's sandwich placement, on TinyShakespeare.

    The model, data, schedule, table and plot of `lab compare`; --use-mine takes your
    RMSNorm, LayerNorm and DyT from the workspace. docs/labs.md puts what the papers claim
    beside what a run shows.

    \b
    Examples:
      normkata lab normfree --quick
      normkata lab normfree --lr 1e-3 --lr 1e-2 --steps 300 --out results/
    """
    from normkata.labs import normfree as lab_module
    from normkata.labs.plots import Plot
    from normkata.ui.terminal import make_console

    options, console = _options(device, seed, out, use_mine), make_console()
    with _progress(console) as progress:
        result = lab_module.run(options, quick=quick, data_path=data, steps=steps, lrs=lrs or None, progress=progress)
    lab_module.render(console, result, options.lang)
    top = max(result["settings"]["lrs"])
    curves = lab_module.curves(result, top)
    plot = Plot(f"normfree_loss_lr{top:g}", curves, f"training loss at lr {top:g}", "step", "loss")
    _finish(console, options, "normfree", result, result["summary"], [plot])


@lab.command()
@click.option(
    "--quick",
    is_flag=True,
    help="Depths 2, 4, 8 on a small model (d_model 64, context 32), 60 steps each: a first look.",
)
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=None, help="The one learning rate used.")
@click.option("--depth", "depths", type=click.IntRange(min=1), multiple=True, help="Depths to compare (repeat).")
@click.option("--steps", type=click.IntRange(min=2), default=None)
@_data_option
@lab_options
def depth(
    quick: bool,
    lr: float | None,
    depths: tuple[int, ...],
    steps: int | None,
    data: Path | None,
    device: str,
    seed: int,
    out: Path | None,
    use_mine: bool,
) -> None:
    """Pre-LN vs Post-LN at growing depth, one learning rate, no warmup.

    The full run trains depths 4, 8 and 12 on a model twice as wide for 150 steps: run --quick
    first to see the shape of it.

    \b
    Examples:
      normkata lab depth --quick
      normkata lab depth --depth 4 --depth 8 --depth 16 --lr 3e-3
    """
    from normkata.labs import depth as lab_module
    from normkata.labs.plots import Plot
    from normkata.ui.terminal import make_console

    options, console = _options(device, seed, out, use_mine), make_console()
    with _progress(console) as progress:
        result = lab_module.run(
            options, quick=quick, data_path=data, lr=lr, depths=depths or None, steps=steps, progress=progress
        )
    lab_module.render(console, result, options.lang)
    table = [{k: r[k] for k in ("depth", "placement", "converged", "first_nan", "final_loss")} for r in result["runs"]]
    plot = Plot("depth_loss", lab_module.curves(result), "training loss by depth", "step", "loss")
    _finish(console, options, "depth", result, table, [plot])


@lab.command()
@lab_options
def precision(device: str, seed: int, out: Path | None, use_mine: bool) -> None:
    """Overflow, underflow, eps and swamping in fp16 and bf16, with numbers.

    \b
    Example:
      normkata lab precision --use-mine
    """
    from normkata.labs import precision as lab_module
    from normkata.ui.terminal import make_console

    options, console = _options(device, seed, out, use_mine), make_console()
    result = lab_module.run(options)
    lab_module.render(console, result, options.lang)
    _finish(console, options, "precision", result, result["rows"], [])


@click.command()
@click.option(
    "--shape",
    type=(int, int, int),
    default=(8, 512, 512),
    show_default=True,
    help="Batch, sequence, hidden (default: MiniMind-small's hidden size 512).",
)
@click.option("--dtype", type=click.Choice(("float32", "bfloat16", "float16")), default="float32", show_default=True)
@click.option(
    "--min-time",
    type=click.FloatRange(min=0.01),
    default=0.3,
    show_default=True,
    help="Seconds of measurement per timing before it may stop.",
)
@click.option(
    "--max-time",
    type=click.FloatRange(min=0.01),
    default=3.0,
    show_default=True,
    help="Cap in seconds per timing while its spread stays above 10% of its median.",
)
@lab_options
def bench(
    shape: tuple[int, int, int],
    dtype: str,
    min_time: float,
    max_time: float,
    device: str,
    seed: int,
    out: Path | None,
    use_mine: bool,
) -> None:
    """Time RMSNorm vs LayerNorm: torch's ops, the references and your kata files.

    Each timing repeats until its interquartile range is under 10% of its median (or --max-time);
    rows show forward and backward median ms with their IQR and the share of a measured memory
    copy (GB/s too under --out). A line warns when the machine was too noisy to trust. With
    --use-mine your files are graded first, and a file that fails its kata is marked in its row.

    \b
    Examples:
      normkata bench                 # each timing repeats until steady, up to --max-time
      normkata bench --use-mine      # plus one grade per file of yours
      normkata bench --dtype bfloat16 --device cuda --out results/
    """
    from normkata.i18n import t
    from normkata.labs import bench as lab_module
    from normkata.ui.terminal import make_console

    options, console = _options(device, seed, out, use_mine), make_console()
    with console.status(t("lab.bench.timing", options.lang)):
        result = lab_module.run(
            options, shape=shape, dtype=dtype, min_run_time=min_time, max_run_time=max_time, lang=options.lang
        )
    lab_module.render(console, result, options.lang)
    _finish(console, options, "bench", result, result["rows"], [])
