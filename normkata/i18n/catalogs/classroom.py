"""Grading a class.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "classroom.running": Text("Grading {kata}", "正在评测 {kata}"),
        "classroom.none": Text(
            "{dir}: no submission matches {pattern} (a .py file, or a folder holding {file})",
            "{dir}：没有与 {pattern} 匹配的提交（一个 .py 文件，或含有 {file} 的文件夹）",
        ),
        "classroom.summary": Text(
            "{kata}: {n} submissions in {seconds:.0f} s, {jobs} at a time: {passed} passed, {failed} not yet, "
            "{errors} could not be graded.",
            "{kata}：{n} 个提交，用时 {seconds:.0f} 秒，同时评测 {jobs} 个：{passed} 个通过，{failed} 个尚未通过，"
            "{errors} 个无法评测。",
        ),
        "classroom.reused": Text(
            "{n} unchanged since the last run kept their grade (--force grades them again).",
            "{n} 个提交自上次评测以来未改动，沿用原成绩（--force 重新评测）。",
        ),
        "classroom.mean": Text("Mean score: {percent:.0%} of the points.", "平均得分：总分的 {percent:.0%}。"),
        "classroom.common": Text("Most common mistakes", "最常见的错误"),
        "classroom.col.mistake": Text("Mistake", "错误"),
        "classroom.col.id": Text("Id", "编号"),
        "classroom.col.submissions": Text("Submissions", "提交数"),
        "classroom.error": Text("Could not grade {name}: {error}", "无法评测 {name}：{error}"),
        "classroom.written": Text(
            "Wrote {gradebook} and the reports in {reports}", "已写入 {gradebook}，报告在 {reports}"
        ),
        "classroom.note.same_name": Text(
            "{entries} share the name {name}: graded as separate rows",
            "{entries} 同名（{name}）：分别作为单独的行评测",
        ),
        "classroom.left.pattern": Text(
            "Left out {n} entries that do not match {pattern}: {names}",
            "未纳入 {n} 个与 {pattern} 不匹配的条目：{names}",
        ),
        "classroom.left.hidden_folder": Text(
            "Left out {n} hidden folder(s), not submissions: {names}",
            "未纳入 {n} 个隐藏文件夹（不是提交）：{names}",
        ),
        "classroom.left.cache": Text("Left out Python's cache: {names}", "未纳入 Python 的缓存：{names}"),
        "classroom.left.other": Text(
            "Left out {n} entries that are neither .py files nor folders: {names}",
            "未纳入 {n} 个既不是 .py 文件也不是文件夹的条目：{names}",
        ),
        "classroom.left.out": Text("Left out the out folder: {names}", "未纳入输出文件夹：{names}"),
        "classroom.left.more": Text("{names} and {n} more", "{names} 等另外 {n} 个"),
        "classroom.not_graded": Text("could not be graded (see error)", "无法评测（见 error 列）"),
        "classroom.reason.syntax": Text("syntax error at line {line}", "第 {line} 行语法错误"),
        "classroom.reason.syntax_in": Text("syntax error at line {line} of {file}", "{file} 第 {line} 行语法错误"),
        "classroom.reason.forbidden": Text("forbidden API {names}", "使用了禁止的 API {names}"),
        "classroom.reason.timed-out": Text("timed out ({n} case(s))", "超时（{n} 个用例）"),
        "classroom.reason.crashed": Text("crashed ({n} case(s))", "崩溃（{n} 个用例）"),
        "classroom.reason.raised": Text("raised an exception ({n} case(s))", "抛出异常（{n} 个用例）"),
        "classroom.reason.wrong-results": Text("{n} cases failed ({categories})", "{n} 个用例未通过（{categories}）"),
        "classroom.kind.syntax-error": Text("syntax error", "语法错误"),
        "classroom.kind.import-error": Text("the file did not import", "文件无法导入"),
        "classroom.kind.missing-class": Text("the class is missing", "缺少要求的类"),
        "classroom.kind.forbidden-api": Text("forbidden API used", "使用了禁止的 API"),
        "classroom.kind.timed-out": Text("timed out", "超时"),
        "classroom.kind.crashed": Text("crashed", "崩溃"),
        "classroom.kind.global-state": Text("changed torch's global state on import", "导入时改变了 torch 的全局状态"),
        "classroom.kind.raised": Text("raised an exception", "抛出异常"),
        "classroom.kind.wrong-results": Text("wrong results, no mistake named", "结果错误，未识别出具体错误"),
        "classroom.shard": Text(
            "Shard {shard}: {n} of the class's {total} submissions.", "分片 {shard}：全班 {total} 个提交中的 {n} 个。"
        ),
        "classroom.md.title": Text("{kata}: {name}", "{kata}：{name}"),
        "classroom.md.field": Text("Gradebook", "成绩册"),
        "classroom.md.score": Text("score", "得分"),
        "classroom.md.cases_passed": Text("cases passed", "通过的用例"),
        "classroom.md.reason": Text("reason", "原因"),
        "classroom.md.seed": Text("seed", "随机种子"),
        "classroom.md.sha256": Text("sha256", "sha256"),
        "classroom.md.note": Text("note", "备注"),
        "classroom.merged": Text(
            "Merged {shards} shards of {kata}: {n} submissions into {out}",
            "已合并 {kata} 的 {shards} 个分片：{n} 个提交，写入 {out}",
        ),
        "classroom.exported": Text(
            "Wrote {path}: {n} grades for {lms}, {blank} left blank (not graded).",
            "已写入 {path}：{lms} 的 {n} 个成绩，{blank} 个留空（未能评测）。",
        ),
        # -- refusals, worded where shown (normkata.i18n.worded)
        "classroom.unsigned.not_json": Text("not a manifest: {why}", "不是清单：{why}"),
        "classroom.unsigned.no_tag": Text("it has no signature", "它没有签名"),
        "classroom.unsigned.bad_tag": Text(
            "its signature does not verify with this grading key: it was changed after grading, or graded with "
            "another key",
            "它的签名无法用本机的评测密钥验证：评测后被改动过，或是用另一个密钥评测的",
        ),
        "classroom.unsigned.unreadable": Text(
            "it is signed but not a manifest this normkata reads", "它有签名，但不是这个版本的 normkata 能读取的清单"
        ),
        "classroom.refuse.unsigned": Text("{path}: {why}", "{path}：{why}"),
        "classroom.refuse.not_out_folder": Text(
            "{path}: not a grade-all out folder ({why})", "{path}：不是 grade-all 的输出文件夹（{why}）"
        ),
        "classroom.refuse.export_unsigned": Text(
            "{path}: no {signed}: export a grade-all or gradebook merge out folder",
            "{path}：没有 {signed}：请导出 grade-all 或 gradebook merge 的输出文件夹",
        ),
        "classroom.refuse.export_shard": Text(
            "{path} is shard {shard} of a class: merge the shards first (normkata gradebook merge)",
            "{path} 是全班的分片 {shard}：请先合并分片（normkata gradebook merge）",
        ),
        "classroom.refuse.points": Text(
            "--points {value}: must be a finite number of points above 0", "--points {value}：必须是大于 0 的有限分数"
        ),
        "classroom.refuse.key_unreadable": Text(
            "{path}: the grade-all key cannot be read ({why})", "{path}：无法读取 grade-all 密钥（{why}）"
        ),
        "classroom.refuse.key_invalid": Text(
            "{path} is not a grade-all key (32 bytes, or 64 hex digits): remove it and run again",
            "{path} 不是 grade-all 密钥（32 字节，或 64 个十六进制数字）：删除它后重新运行",
        ),
        "classroom.refuse.shard_spec": Text(
            "--shard {text}: expected K/N (shard K of N, e.g. 2/3) or auto",
            "--shard {text}：应为 K/N（N 个分片中的第 K 个，例如 2/3）或 auto",
        ),
        "classroom.source.given": Text("--shard {text}", "--shard {text}"),
        "classroom.source.slurm": Text(
            "--shard auto (Slurm array task {task}, {count} tasks from {first})",
            "--shard auto（Slurm 作业数组任务 {task}，从 {first} 起共 {count} 个任务）",
        ),
        "classroom.source.k8s": Text(
            "--shard auto (Kubernetes completion index {index} of {count})",
            "--shard auto（Kubernetes 完成索引 {index}，共 {count} 个）",
        ),
        "classroom.source.env": Text(
            "--shard auto (NORMKATA_SHARD_INDEX {index} of {count})",
            "--shard auto（NORMKATA_SHARD_INDEX {index}，共 {count} 个）",
        ),
        "classroom.refuse.shard_count": Text(
            "{source}: the number of shards must be between 1 and {max}", "{source}：分片数必须在 1 到 {max} 之间"
        ),
        "classroom.refuse.shard_index": Text(
            "{source}: shard {index} of {count} does not exist (shards are 1 to {count})",
            "{source}：不存在 {count} 个分片中的第 {index} 个（分片编号为 1 到 {count}）",
        ),
        "classroom.refuse.shard_number": Text(
            "--shard auto: {name}={value} is not a whole number", "--shard auto：{name}={value} 不是整数"
        ),
        "classroom.refuse.slurm_count": Text(
            "--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT: run it as a job array "
            "(sbatch --array=0-2)",
            "--shard auto：设置了 SLURM_ARRAY_TASK_ID 但没有 SLURM_ARRAY_TASK_COUNT：请以作业数组运行"
            "（sbatch --array=0-2）",
        ),
        "classroom.refuse.slurm_spacing": Text(
            "{source}: the array is not evenly spaced ({first} to {last}, step {step}, {count} tasks): use a range "
            "such as --array=0-{end}",
            "{source}：作业数组间隔不均匀（{first} 到 {last}，步长 {step}，{count} 个任务）：请使用"
            " --array=0-{end} 这样的范围",
        ),
        "classroom.refuse.slurm_task": Text(
            "{source}: task {task} is not in the array", "{source}：任务 {task} 不在作业数组中"
        ),
        "classroom.refuse.k8s_count": Text(
            "--shard auto: JOB_COMPLETION_INDEX is set but not NORMKATA_SHARD_COUNT: set it to the Indexed Job's "
            "completions",
            "--shard auto：设置了 JOB_COMPLETION_INDEX 但没有 NORMKATA_SHARD_COUNT：请把它设为 Indexed Job 的"
            " completions",
        ),
        "classroom.refuse.env_count": Text(
            "--shard auto: NORMKATA_SHARD_INDEX is set but not NORMKATA_SHARD_COUNT",
            "--shard auto：设置了 NORMKATA_SHARD_INDEX 但没有 NORMKATA_SHARD_COUNT",
        ),
        "classroom.refuse.no_engine": Text(
            "--shard auto: none of SLURM_ARRAY_TASK_ID (Slurm), JOB_COMPLETION_INDEX (Kubernetes) or "
            "NORMKATA_SHARD_INDEX (GitHub Actions and others) is set: pass --shard K/N",
            "--shard auto：SLURM_ARRAY_TASK_ID（Slurm）、JOB_COMPLETION_INDEX（Kubernetes）和"
            " NORMKATA_SHARD_INDEX（GitHub Actions 等）都未设置：请传入 --shard K/N",
        ),
        "classroom.refuse.run_id": Text(
            "--run {given}: expected an id of letters, digits, '.', '_', ':' or '-' (at most 100), e.g. 2026-12-07",
            "--run {given}：标识只能由字母、数字、'.'、'_'、':' 或 '-' 组成（至多 100 个），例如 2026-12-07",
        ),
        "classroom.refuse.run_needed": Text(
            "--shard {shard} needs --run ID: the one id every shard of this class run is given (e.g. the date; or "
            "set NORMKATA_RUN_ID), so that the merge refuses a shard of another run",
            "--shard {shard} 需要 --run ID：这次全班评测的每个分片都使用同一个标识（例如日期；或设置"
            " NORMKATA_RUN_ID），这样合并时会拒绝其他运行的分片",
        ),
        "classroom.refuse.run_env": Text(
            "NORMKATA_RUN_ID={given}: expected an id of letters, digits, '.', '_', ':' or '-'",
            "NORMKATA_RUN_ID={given}：标识只能由字母、数字、'.'、'_'、':' 或 '-' 组成",
        ),
        "classroom.refuse.out_holds": Text(
            "--out {out} holds {there}: choose another folder, or add --force to replace it",
            "--out {out} 中已有{there}：请选择另一个文件夹，或加上 --force 替换它",
        ),
        "classroom.refuse.out_inside": Text(
            "--out {out} is inside the class folder {folder}, where students' files could stand in for the "
            "gradebook: choose a folder outside it",
            "--out {out} 位于班级文件夹 {folder} 之内，学生的文件可能冒充成绩册：请选择它之外的文件夹",
        ),
        "classroom.refuse.out_not_folder": Text(
            "--out {out}: not a folder of its own ({why}; links are not followed)",
            "--out {out}：不是一个独立的文件夹（{why}；不跟随链接）",
        ),
        "classroom.refuse.out_foreign": Text(
            "--out {out} exists and was not written by normkata grade-all: choose another folder, or add --force to "
            "grade everything into it",
            "--out {out} 已存在且不是 normkata grade-all 写的：请选择另一个文件夹，或加上 --force 把全部评测结果写入它",
        ),
        "classroom.refuse.out_is_shard": Text(
            "--out {out} is one of the shards: merge into another folder",
            "--out {out} 是要合并的分片之一：请合并到另一个文件夹",
        ),
        "classroom.refuse.same_shard": Text(
            "{a} and {b} are both shard {shard}: each shard is merged once",
            "{a} 和 {b} 都是分片 {shard}：每个分片只能合并一次",
        ),
        "classroom.refuse.missing_shard": Text(
            "shard {missing} missing: a class graded in {count} shards is merged from all {count} out folders",
            "缺少分片 {missing}：分 {count} 片评测的班级要由全部 {count} 个输出文件夹合并",
        ),
        "classroom.refuse.in_two": Text(
            "submission {name} is in both {a} and {b}", "提交 {name} 同时出现在 {a} 和 {b} 中"
        ),
        "classroom.refuse.misplaced": Text(
            "{path}: submission {name} does not belong to shard {shard}", "{path}：提交 {name} 不属于分片 {shard}"
        ),
        "classroom.refuse.incomplete": Text(
            "{path}: shard {shard} holds {n} of its {assigned} submissions (interrupted?): run its grade-all again",
            "{path}：分片 {shard} 只有其 {assigned} 个提交中的 {n} 个（被中断了？）：请重新运行它的 grade-all",
        ),
        "classroom.refuse.class_size": Text(
            "the shards hold {n} of the class's {size} submissions", "这些分片只有全班 {size} 个提交中的 {n} 个"
        ),
        "classroom.refuse.maxima": Text(
            "rows are graded out of different maxima ({maxima}): grade every shard on the same kind of machine, or "
            "with --device cpu",
            "各行的满分不同（{maxima}）：请在同一类机器上评测每个分片，或使用 --device cpu",
        ),
        "classroom.refuse.settings": Text(
            "{b} was graded with {b_settings}, {a} with {a_settings}: the shards of one class share the kata, "
            "language, seed, case timeout and device",
            "{b} 的评测设置是 {b_settings}，{a} 的是 {a_settings}：同一班级的分片须使用相同的练习、语言、随机种子、"
            "用例超时和设备",
        ),
        "classroom.refuse.count": Text(
            "{b} is shard {b_shard}, {a} shard {a_shard}: one class, one count",
            "{b} 是分片 {b_shard}，{a} 是分片 {a_shard}：同一班级只能有一种分片数",
        ),
        "classroom.refuse.run": Text(
            "{b} is of class run {b_run}, {a} of run {a_run}: merge the shards of one run (a shard kept from an "
            "earlier run is as signed as today's)",
            "{b} 属于评测运行 {b_run}，{a} 属于运行 {a_run}：请合并同一次运行的分片"
            "（之前运行留下的分片和今天的一样带有签名）",
        ),
        "classroom.refuse.listing": Text(
            "{b} and {a} were split from different class folders ({b_size} and {a_size} submissions; {name} is in "
            "one only)",
            "{b} 和 {a} 分自不同的班级文件夹（{b_size} 和 {a_size} 个提交；{name} 只在其中一个里）",
        ),
        "classroom.refuse.contents": Text(
            "{b} read other contents of the class than {a} ({name}, and {more} more, differ): the files changed "
            "between the shards' runs; grade every shard again from the same files",
            "{b} 读到的班级内容与 {a} 不同（{name} 及另外 {more} 个不一致）：文件在各分片运行之间被改动；"
            "请用相同的文件重新评测每个分片",
        ),
        "classroom.refuse.not_shard_folder": Text(
            "{path}: not a grade-all out folder ({why}; links are not followed)",
            "{path}：不是 grade-all 的输出文件夹（{why}；不跟随链接）",
        ),
        "classroom.refuse.merge_unsigned": Text(
            "{path}: no {signed}: not an out folder of grade-all (or graded before shards were signed: grade it again)",
            "{path}：没有 {signed}：不是 grade-all 的输出文件夹（或是在分片签名之前评测的：请重新评测）",
        ),
        "classroom.refuse.foreign_file": Text(
            "{path}: lists {file}, which no grade-all writes", "{path}：列出了 {file}，而 grade-all 不会写这个文件"
        ),
        "classroom.refuse.signed_missing": Text(
            "{path}: missing or not a regular file, though signed", "{path}：已签名，但缺失或不是普通文件"
        ),
        "classroom.refuse.signed_changed": Text(
            "{path} is not what was signed: changed or replaced after grading",
            "{path} 与签名时的内容不同：评测后被改动或替换",
        ),
        "classroom.refuse.reports_unsigned": Text(
            "{path}: the reports of {name} are not signed", "{path}：{name} 的报告没有签名"
        ),
        "classroom.refuse.visibility": Text(
            "--visibility {given}: Gradescope knows {known}", "--visibility {given}：Gradescope 只认 {known}"
        ),
        "classroom.refuse.wheel": Text(
            "--wheel: {wheel} is not a normkata wheel (normkata-*.whl)",
            "--wheel：{wheel} 不是 normkata 的 wheel（normkata-*.whl）",
        ),
        "classroom.refuse.installed": Text(
            "normkata runs from an installed wheel here: pass that wheel with --wheel FILE",
            "这里的 normkata 是从已安装的 wheel 运行的：请用 --wheel FILE 传入那个 wheel",
        ),
        "classroom.refuse.wheel_build": Text(
            "building the normkata wheel failed ({why}): install hatchling, or pass --wheel FILE",
            "构建 normkata 的 wheel 失败（{why}）：请安装 hatchling，或传入 --wheel FILE",
        ),
        "classroom.settings": Text(
            "{kata}, {lang}, {seed}, {timeout} s, {device}{weights}",
            "{kata}，{lang}，{seed}，{timeout} 秒，{device}{weights}",
        ),
        "classroom.settings.weights": Text(", weights {weights}", "，权重 {weights}"),
        "classroom.refuse.weights": Text(
            "--weights {given}: expected CATEGORY=POINTS (a whole number, 0 or more) with CATEGORY one of {known}",
            "--weights {given}：应为 CATEGORY=POINTS（0 或更大的整数），CATEGORY 为 {known} 之一",
        ),
        "classroom.settings.fresh": Text("fresh seeds", "每份提交各取随机种子"),
        "classroom.settings.seed": Text("seed {seed}", "随机种子 {seed}"),
        "classroom.settings.unknown": Text("unknown settings", "未知的设置"),
        "classroom.there.gradebook": Text(
            "the finished gradebook of {n} graded submission(s) ({settings}) from {graded}",
            "一份已完成的成绩册：{n} 个已评测的提交（{settings}），来自{graded}",
        ),
        "classroom.there.merge": Text("a merge of shards", "分片的合并"),
        "classroom.there.shard": Text("{folder}, shard {shard}", " {folder}，分片 {shard}"),
        "classroom.there.not_folder": Text(
            "something that is not a folder of its own ({why})", "不是独立文件夹的东西（{why}）"
        ),
        "classroom.there.entries": Text("{n} entries ({names})", " {n} 个条目（{names}）"),
        "classroom.refuse.question_exists": Text(
            "--out {out} already holds files: choose an empty or new folder for the question",
            "--out {out} 中已有文件：请为这道题选择一个空的或新的文件夹",
        ),
        "classroom.question.written": Text(
            "Wrote the question {path}: build and push its grader image ({image}) from {path}/image/, then copy "
            "the folder into your course's questions/.",
            "已写入题目 {path}：先用 {path}/image/ 构建并推送评分镜像（{image}），"
            "再把这个文件夹复制到课程的 questions/ 中。",
        ),
        "classroom.page.title": Text("{kata}: the class", "{kata}：全班"),
        "classroom.page.summary": Text(
            "{n} submissions: {passed} passed, {failed} not yet, {errors} could not be graded.",
            "{n} 个提交：{passed} 个通过，{failed} 个尚未通过，{errors} 个无法评测。",
        ),
        "classroom.page.histogram": Text("Scores (share of the suite's cases)", "得分分布（占全部用例的比例）"),
        "classroom.page.rows": Text("Submissions", "提交"),
        "classroom.page.sort_hint": Text("Click a column's title to sort by it.", "点击列标题即可按该列排序。"),
        "classroom.page.col.submission": Text("Submission", "提交"),
        "classroom.page.col.passed": Text("Passed", "通过"),
        "classroom.page.col.score": Text("Score", "得分"),
        "classroom.page.col.cases_passed": Text("Cases passed", "通过的用例"),
        "classroom.page.col.reason": Text("Reason", "原因"),
        "classroom.page.yes": Text("yes", "是"),
        "classroom.page.no": Text("not yet", "尚未"),
        "classroom.page.not_graded": Text("not graded", "未评测"),
        "classroom.page.back": Text("← The class", "← 全班"),
        "classroom.student.link": Text(
            "Your {file} is a symbolic link: upload the file itself.", "你的 {file} 是符号链接：请上传文件本身。"
        ),
        "classroom.student.missing": Text(
            "Your submission has no {file}: upload a file with exactly that name.",
            "你的提交中没有 {file}：请上传一个恰好叫这个名字的文件。",
        ),
        "classroom.student.not_file": Text(
            "Your {file} is not a regular file: upload the file itself.", "你的 {file} 不是普通文件：请上传文件本身。"
        ),
        "classroom.student.too_big": Text(
            "Your {file} is larger than {kb} kB: upload the kata's file only.",
            "你的 {file} 大于 {kb} kB：请只上传这道练习的文件。",
        ),
        "classroom.student.stopped": Text(
            "The grader stopped (exit code {status}); your instructor can see why in the grader's output.",
            "评测程序中途停止（退出码 {status}）；你的老师可以在评测程序的输出中看到原因。",
        ),
        "classroom.bundle.written": Text(
            "Wrote {path}: upload it as the autograder of a Gradescope programming assignment.",
            "已写入 {path}：将它上传为 Gradescope 编程作业的自动评分器。",
        ),
    },
)
