"""The assistant's fixed texts in the user's language: English, or Korean (docs/agent.md,
"Languages").

Like the seed assistant, vaultctx answers a tool call in the user's language, and the same text
goes to the model and to the terminal. The language is the ``language`` setting, else the
locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``ko…`` is Korean, anything else English).

No translation framework: the English text is the key (as a gettext message id is) and ``KO``
holds its Korean, with the same ``{placeholders}``. A tool result is translated where every call
passes (agent/toolset.py), by its first line only: that line is always vaultctx's own (what was
done, or what failed), while the lines after it may be a note's text or a search excerpt, which
are never altered. A text without a Korean entry stays English. Failure texts in either language
are failures (``tool_results.is_tool_error``), so switching language never resets the count.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

LANGUAGES = ("en", "ko")
DEFAULT_LANGUAGE = "en"
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

# The tool results' headlines (agent/tool_results.py, note_tools.py, template_tools.py,
# search_tool.py) and the loop's endings (tool_loop.py, failure_tracker.py).
KO_TOOLS: dict[str, str] = {
    "Tool execution error:": "도구 실행 오류:",
    "Tool execution denied by user.": "사용자가 도구 실행을 거부했습니다.",
    "Tool not run: the tool loop stopped after repeated failures. No changes were made.": (
        "도구를 실행하지 않았습니다: 실패가 반복되어 도구 루프가 멈췄습니다. 바뀐 것은 없습니다."
    ),
    "No note is currently open.": "현재 열린 노트가 없습니다.",
    "The folder is empty.": "폴더가 비어 있습니다.",
    "No templates saved yet.": "저장된 템플릿이 아직 없습니다.",
    "The search query is empty. Give the words to look for.": (
        "검색어가 비어 있습니다. 찾을 단어를 주세요."
    ),
    "No search results. Your vault may need indexing (`vaultctx index`).": (
        "검색 결과가 없습니다. 볼트를 색인해야 할 수 있습니다 (`vaultctx index`)."
    ),
    "Unknown tool: {name}": "알 수 없는 도구: {name}",
    "Missing or non-string arguments: {keys}. No changes were made.": (
        "없거나 문자열이 아닌 인수: {keys}. 바뀐 것은 없습니다."
    ),
    "{tool}: paths outside the vault are not allowed: {value}": (
        "{tool}: 볼트 밖의 경로는 허용되지 않습니다: {value}"
    ),
    "File not found: {path}": "파일을 찾을 수 없습니다: {path}",
    "Folder not found: {folder}": "폴더를 찾을 수 없습니다: {folder}",
    "The search filter is not valid:": "검색 필터가 올바르지 않습니다:",
    "Search failed: {message}": "검색 실패: {message}",
    "Search results ({mode}) — filter: {filter}:": "검색 결과 ({mode}) — 필터: {filter}:",
    "Search results ({mode}):": "검색 결과 ({mode}):",
    "Path: {path}": "경로: {path}",
    "Note created: {path}": "노트를 만들었습니다: {path}",
    "Note updated: {path}": "노트를 고쳤습니다: {path}",
    "Note partially updated: {path} ({count} replaced)": (
        "노트를 일부 고쳤습니다: {path} ({count}곳 바꿈)"
    ),
    "Content appended: {path}": "내용을 덧붙였습니다: {path}",
    "File moved: {move}": "파일을 옮겼습니다: {move}",
    "Folder moved: {move}": "폴더를 옮겼습니다: {move}",
    "File deleted: {path}": "파일을 삭제했습니다: {path}",
    "Folder deleted: {path}": "폴더를 삭제했습니다: {path}",
    "Template saved: {path}": "템플릿을 저장했습니다: {path}",
    "Template updated: {path}": "템플릿을 고쳤습니다: {path}",
    "Reached the tool round limit ({rounds}) before finishing. Send another message to continue.": (
        "끝내기 전에 도구 라운드 한도({rounds})에 닿았습니다. "
        "이어 가려면 메시지를 하나 더 보내세요."
    ),
    "Tool execution failed {count} times (in a row or on the same tool). "
    "Stopping the tool loop to prevent further errors.": (
        "도구 실행이 {count}번 실패했습니다 (연속으로, 또는 같은 도구에서). "
        "더 큰 오류를 막으려고 도구 루프를 멈춥니다."
    ),
}
# The chat's and ask's own lines on the terminal (cli/chat_repl.py, cli/answer_output.py).
KO_TERMINAL: dict[str, str] = {
    "vaultctx chat: /help for commands, Ctrl-D to leave": (
        "vaultctx chat: 명령은 /help, 나가려면 Ctrl-D"
    ),
    "new conversation": "새 대화",
    "saved as {id}": "{id}(으)로 저장했습니다",
    "nothing to save yet": "아직 저장할 것이 없습니다",
    "web search on ({how})": "웹 검색 켬 ({how})",
    "web search off": "웹 검색 끔",
    "unresolved citation: {citation} ({message})": "찾을 수 없는 인용: {citation} ({message})",
    "stopped: {why}": "멈춤: {why}",
}
CATALOGUES: dict[str, Mapping[str, str]] = {"en": {}, "ko": KO_TOOLS | KO_TERMINAL}
# What a tool result's first line may be: only these are looked for there.
TOOL_CATALOGUES: dict[str, Mapping[str, str]] = {"en": {}, "ko": KO_TOOLS}


def language_from_locale(environ: Mapping[str, str] | None = None) -> str:
    """The locale's language if vaultctx has it (``ko_KR.UTF-8`` → ``ko``), else English."""
    env = os.environ if environ is None else environ
    for name in _LOCALE_VARIABLES:
        value = env.get(name, "")
        if value:
            primary = value.split(".")[0].split("_")[0].lower()
            return primary if primary in LANGUAGES else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def say(language: str | None, english: str, **values: object) -> str:
    """``english`` in ``language`` (English when it has no entry), with ``values`` filled in."""
    template = CATALOGUES.get(language or DEFAULT_LANGUAGE, {}).get(english, english)
    return template.format(**values) if values else template


def localise(result: str, language: str | None) -> str:
    """A tool result with its first line in ``language``: an error's prefix and, after it, the
    message, each translated when it is one of ours; the rest of the text as it was."""
    if not language or language == DEFAULT_LANGUAGE or language not in CATALOGUES:
        return result
    first, newline, rest = result.partition("\n")
    return _line(first, language) + newline + rest


def _line(line: str, language: str) -> str:
    prefix = "Tool execution error:"
    if line.startswith(prefix + " "):
        return f"{say(language, prefix)} {_line(line[len(prefix) + 1 :], language)}"
    if line in TOOL_CATALOGUES[language]:
        return say(language, line)
    for pattern, english in _patterns(language):
        match = pattern.fullmatch(line)
        if match:
            return say(language, english, **match.groupdict())
    return line


@cache
def _patterns(language: str) -> list[tuple[re.Pattern[str], str]]:
    """Each catalogue text with placeholders as a pattern matching its filled-in form."""
    found = []
    for english in TOOL_CATALOGUES[language]:
        parts = re.split(r"\{(\w+)\}", english)
        if len(parts) == 1:
            continue
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        found.append((re.compile(regex, re.DOTALL), english))
    return found
