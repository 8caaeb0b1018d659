"""Files and folders someone else controls (normkata/files.py): why one was not opened, read or written.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up. Each `files.*`
reason is said without the path (a content check puts it after `file:line:`); the three
`files.line*` put the path in front.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "files.line": Text("{path} is {what}", "{path} {what}"),
        "files.line.error": Text("{path}: {what}", "{path}：{what}"),
        "files.line.bare": Text("{path} {what}", "{path} {what}"),
        "files.link": Text("a symbolic link, which is not followed", "是符号链接，不会被跟随"),
        "files.fifo": Text("a FIFO, not a regular file", "是 FIFO，不是普通文件"),
        "files.device": Text("a device, not a regular file", "是设备，不是普通文件"),
        "files.socket": Text("a socket, not a regular file", "是套接字，不是普通文件"),
        "files.folder": Text("a folder, not a file", "是文件夹，不是文件"),
        "files.not_regular": Text("not a regular file", "不是普通文件"),
        "files.not_folder": Text("not a folder", "不是文件夹"),
        "files.special": Text(
            "a file of {fs}, not of a regular file system (its size says nothing of what it holds)",
            "是 {fs} 中的文件，不在普通文件系统上（它标明的大小与内容无关）",
        ),
        "files.too_large": Text("larger than {amount} ({size} bytes)", "大于 {amount}（{size} 字节）"),
        "files.unreadable": Text("{reason}", "{reason}"),
    },
)
