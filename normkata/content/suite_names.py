"""What a kata's hidden suite calls its cases and misconceptions, in either language, read
without importing the suite (it imports torch).

A case's id is its pytest name without `test_` (`forward[2x5x8-cpu]`); the grader shows it as
`forward [2x5x8-cpu]` in English and with the suite's CASE_NAMES_ZH title in Chinese. The
grader's own cases (the file would not import, a rule of the kata) have fixed ids. Records keep
ids, and screens ask here for the words of the moment.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: The grader's own cases, outside any suite: id -> (English, Chinese).
GRADER_CASES: dict[str, tuple[str, str]] = {
    "import": ("import", "import"),
    "forbidden_api": ("uses no forbidden API", "未使用禁止的 API"),
    "global_defaults": ("leaves torch's global defaults alone", "不改动 torch 的全局默认设置"),
}

#: Case names shared by several suites, in Chinese; a suite lists only its own (`case_names_zh`).
GLOSSARY_ZH = {
    "gradients": "梯度",
    "called_several_times": "多次调用同一模块",
    "half_precision": "半精度",
    "custom_eps": "自定义 eps",
    "forward": "前向",
    "forward_drawn_shapes": "随机形状的前向",
    "small_variance": "小方差",
    "dtype_argument_and_to": "dtype 参数与 .to()",
    "without_affine": "不带仿射参数",
    "gradients_drawn_shapes": "随机形状的梯度",
    "float64": "float64 输入",
    "large_eps": "较大的 eps",
    "backward_uses_no_autograd": "backward 不使用 autograd",
    "parameters_and_state_dict": "参数与 state_dict",
    "small_hidden_sizes": "很小的隐藏维度",
    "small_variance_rows": "小方差的行",
    "large_values": "大数值",
    "constant_channel": "常数通道",
    "tuple_normalized_shape": "元组形式的 normalized_shape",
    "without_bias": "不带 bias",
    "tuple_shapes": "元组形状",
    "large_activations": "大激活",
    "weight_parameter_and_state_dict": "weight 参数与 state_dict",
    "loads_torch_rmsnorm_state_dict": "加载 torch nn.RMSNorm 的 state_dict",
    "normalizes_the_last_dimension": "在最后一维上归一化",
    "large_offset": "大偏移",
    "fp16_large_activations": "fp16 大激活",
    "constant_rows": "常数行",
    "four_dimensional_input": "四维输入",
    "block_submodules_and_state_dict": "block 的子模块与 state_dict",
    "stack_submodules_and_state_dict": "堆叠的子模块与 state_dict",
    "block_forward": "block 前向",
    "stack_forward": "堆叠前向",
    "eps_reaches_every_norm": "eps 传到每个归一化层",
    "block_half_precision": "block 半精度",
    "strided_rows_with_nan_gaps": "行间隔中含 NaN 的跨步输入",
    "bounds_guard": "越界检查自检",
}

#: Misconceptions every suite may name, defined beside the checks (Misconception(id, en, zh, ...)).
_SHARED = Path(__file__).parents[1] / "grading" / "checks"


def case_name(case_id: str, lang: str, zh_titles: dict[str, str]) -> str:
    """How the grader shows a case: `forward [2x5x8-cpu]`, or its Chinese title and the same
    parameters. An id no table knows is shown as it is."""
    if case_id in GRADER_CASES:
        return GRADER_CASES[case_id][lang == "zh"]
    base, bracket, params = case_id.partition("[")
    if base not in zh_titles:
        return case_id
    title = zh_titles[base] if lang == "zh" else base.replace("_", " ")
    return title + (f" [{params}" if bracket else "")


@dataclass(frozen=True)
class SuiteNames:
    suite: Path
    zh_titles: dict[str, str]  # case base -> Chinese title (CASE_NAMES_ZH)

    def case(self, case_id: str, lang: str) -> str:
        return case_name(case_id, lang, self.zh_titles)

    def case_id(self, name: str) -> str:
        """The id of a case as the grader named it in either language; the name itself when
        neither language knows it (a suite that changed since)."""
        for known, (en, zh) in GRADER_CASES.items():
            if name in (en, zh):
                return known
        title, bracket, params = name.partition(" [")
        base = title.replace(" ", "_")
        if base not in self.zh_titles:
            base = next((b for b, zh in self.zh_titles.items() if zh == title), "")
        if not base:
            return name
        return base + (f"[{params}" if bracket else "")

    def misconception(self, misconception_id: str, lang: str) -> str | None:
        """Its title in `lang`; None for an id neither kata.yaml nor the shared checks define."""
        words = self._words(misconception_id)
        return words[lang == "zh"] if words else None

    def misconception_hint(self, misconception_id: str, lang: str) -> str | None:
        """Its hint in `lang` (what `grade` prints under it); None for an id no one defines."""
        words = self._words(misconception_id)
        return words[2 + (lang == "zh")] if words else None

    def _words(self, misconception_id: str) -> tuple[str, str, str, str] | None:
        meta = self.suite.parent / "kata.yaml"
        return _misconceptions(self.suite, _stamp(meta), _stamp(_SHARED)).get(misconception_id)


def cases_by_id(kata_id: str, cases: str) -> str:
    """A record's `cases` as kept before ids (JSON {case name: status}, in the grade's language)
    keyed by id instead; text that is not such JSON comes back as it was."""
    try:
        named = json.loads(cases)
    except (TypeError, ValueError):
        return cases
    if not isinstance(named, dict):
        return cases
    names = suite_names(kata_id)
    return json.dumps({names.case_id(str(name)): status for name, status in named.items()}, ensure_ascii=False)


def suite_names(kata_id: str) -> SuiteNames:
    """The names of kata `kata_id`'s suite; empty tables for a kata the catalog lacks."""
    from normkata.paths import katas_dir

    suite = katas_dir() / kata_id / "suite.py"
    return _read(suite, _stamp(suite))


def _stamp(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None


@lru_cache(maxsize=32)
def _read(suite: Path, _stamp: float) -> SuiteNames:
    """Parsed once per file version (watch records every save); only the top level is read: every
    grade needs these names, and the suite's CASE_NAMES_ZH is a module constant."""
    titles: dict[str, str] = {}
    tree = _parse(suite)
    for node in tree.body if tree else ():
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CASE_NAMES_ZH"
                                                for t in node.targets):  # fmt: skip
            titles.update(_zh_titles(node.value))
    return SuiteNames(suite, titles)


def _zh_titles(value: ast.expr) -> dict[str, str]:
    """CASE_NAMES_ZH's value: a dict literal, or `case_names_zh({...})` (the glossary and the suite's own)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "case_names_zh":
        own = ast.literal_eval(value.args[0]) if value.args else {}
        return {**GLOSSARY_ZH, **{str(k): str(v) for k, v in own.items()}}
    return {str(k): str(v) for k, v in ast.literal_eval(value).items()}


@lru_cache(maxsize=32)
def _misconceptions(suite: Path, _meta_stamp: float, _shared_stamp: float) -> dict[str, tuple[str, str, str, str]]:
    """id -> (title en, title zh, hint en, hint zh) of every misconception the kata's kata.yaml
    words and of those the shared checks write out (Misconception(id, en, zh, hint en, hint zh));
    read only by screens that show them (history, advice, hint)."""
    from normkata.content.katas import read_kata
    from normkata.errors import InputError

    found: dict[str, tuple[str, str, str, str]] = {}
    for path in sorted(_SHARED.glob("*.py")):
        tree = _parse(path)
        for node in ast.walk(tree) if tree else ():
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Misconception"
                    and len(node.args) >= 5 and all(isinstance(a, ast.Constant) for a in node.args[:5])):  # fmt: skip
                mid, en, zh, hint_en, hint_zh = (str(a.value) for a in node.args[:5])  # type: ignore[attr-defined]
                found[mid] = (en, zh, hint_en, hint_zh)
    try:
        kata = read_kata(suite.parent.name, suite.parent.parent)
    except InputError:  # a kata the catalog no longer has: its attempts keep the titles they stored
        return found
    return found | {m.id: (m.title.en, m.title.zh, m.hint.en, m.hint.zh) for m in kata.misconceptions}
