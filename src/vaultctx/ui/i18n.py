"""The UI's words in English, Korean and Japanese, and which of them a request gets.

A plain dict per language: the pages have few words, and a missing Korean or Japanese entry
falls back to English (a test keeps the three catalogues' keys equal). The language comes from
the switch's cookie when set, else from the browser's Accept-Language.
"""

from __future__ import annotations

LANGUAGES = {"en": "English", "ko": "한국어", "ja": "日本語"}
DEFAULT_LANGUAGE = "en"
LANGUAGE_COOKIE = "vaultctx_ui_lang"

CATALOGUE: dict[str, dict[str, str]] = {
    "en": {
        "app": "vaultctx",
        "nav.search": "Search",
        "nav.changes": "Changes",
        "nav.status": "Status",
        "nav.language": "Language",
        "search.title": "Search",
        "search.query": "Search the notes",
        "search.button": "Search",
        "search.filters": "Filters",
        "search.folder": "Folder",
        "search.tags": "Tags (comma-separated)",
        "search.since": "Modified since",
        "search.until": "Modified until",
        "search.where": "Front matter conditions (one per line)",
        "search.mode": "Mode",
        "search.mode.hybrid": "Hybrid",
        "search.mode.bm25": "Keywords (BM25)",
        "search.mode.vector": "Vectors",
        "search.graph": "Follow links (graph)",
        "search.depth": "Graph depth",
        "search.results": "Results",
        "search.none": "Nothing in the notes matches.",
        "search.count": "{count} results in {ms} ms",
        "search.score": "score",
        "search.hint": (
            "Type and press Enter. ↓/↑ move between results, Enter opens one, / returns here."
        ),
        "note.headings": "Headings",
        "note.outlinks": "Links from this note",
        "note.backlinks": "Links to this note",
        "note.similar": "Similar notes",
        "note.obsidian": "Open in Obsidian",
        "note.none": "none",
        "note.truncated": "The note is long: only its beginning is shown.",
        "note.line": "line",
        "changes.title": "Changes",
        "changes.intro": (
            "Every change vaultctx made to the vault, newest first. Undo reverts"
            " the newest one if its files are still as it left them."
        ),
        "changes.none": "No changes recorded.",
        "changes.undo": "Undo this change",
        "changes.undone": "Undone: {label}",
        "changes.refused": "Undo refused",
        "changes.files": "files",
        "changes.binary": "(binary content)",
        "status.title": "Status",
        "status.vault": "Vault",
        "status.db": "Index",
        "status.files": "Files",
        "status.chunks": "Chunks",
        "status.pass2": "Pass 2 (quality vectors)",
        "status.last_run": "Last index run",
        "status.never": "never",
        "status.interrupted": "interrupted",
        "status.missing": "There is no index yet: press Re-index.",
        "status.doctor": "Checks",
        "status.reindex": "Re-index",
        "status.reindex.running": "Indexing…",
        "status.reindex.done": "Index up to date.",
        "status.reindex.failed": "Indexing failed",
        "status.problems": "Notes with problems",
        "error.title": "Something went wrong",
        "error.fix": "How to fix it",
        "error.notfound": "No such page.",
        "nav.chat": "Chat",
        "chat.title": "Chat",
        "chat.intro": (
            "Ask about your notes: the answer streams in, with the notes it used as sources."
        ),
        "chat.question": "Your question",
        "chat.send": "Ask",
        "chat.stop": "Stop",
        "chat.you": "You",
        "chat.answer": "Answer",
        "chat.sources": "Sources",
        "chat.unresolved": "Citations that match no note",
        "chat.tools": "Tool",
        "chat.stopped": "Stopped.",
        "chat.saved": "Saved as conversation {id}.",
        "nav.conversations": "Conversations",
        "conv.title": "Saved conversations",
        "conv.search": "Search the conversations",
        "conv.none": "No conversations.",
        "conv.export": "Export as markdown",
        "conv.messages": "{count} messages",
        "chat.confirm": "Allow this change?",
        "chat.yes": "Yes",
        "chat.no": "No",
        "chat.always": "Always (this conversation)",
        "chat.expired": "No longer waiting for an answer.",
        "chat.effort": "Reasoning effort",
        "chat.effort.default": "as configured",
        "chat.attach": "Attach files",
        "chat.attach.hint": "or drop them here: text, markdown, images, PDF",
        "skip": "Skip to content",
    },
    "ko": {
        "app": "vaultctx",
        "nav.search": "검색",
        "nav.changes": "변경 기록",
        "nav.status": "상태",
        "nav.language": "언어",
        "search.title": "검색",
        "search.query": "노트 검색",
        "search.button": "검색",
        "search.filters": "필터",
        "search.folder": "폴더",
        "search.tags": "태그 (쉼표로 구분)",
        "search.since": "수정 시작일",
        "search.until": "수정 종료일",
        "search.where": "프런트매터 조건 (한 줄에 하나)",
        "search.mode": "방식",
        "search.mode.hybrid": "하이브리드",
        "search.mode.bm25": "키워드 (BM25)",
        "search.mode.vector": "벡터",
        "search.graph": "링크 따라가기 (그래프)",
        "search.depth": "그래프 깊이",
        "search.results": "결과",
        "search.none": "일치하는 노트가 없습니다.",
        "search.count": "결과 {count}개, {ms} ms",
        "search.score": "점수",
        "search.hint": "입력 후 Enter. ↓/↑로 결과 이동, Enter로 열기, /로 검색창으로.",
        "note.headings": "제목",
        "note.outlinks": "이 노트의 링크",
        "note.backlinks": "이 노트로의 링크",
        "note.similar": "비슷한 노트",
        "note.obsidian": "Obsidian에서 열기",
        "note.none": "없음",
        "note.truncated": "노트가 길어서 앞부분만 표시합니다.",
        "note.line": "줄",
        "changes.title": "변경 기록",
        "changes.intro": (
            "vaultctx가 볼트에 한 모든 변경, 최신순. "
            "실행 취소는 파일이 그대로일 때 가장 최근 변경을 되돌립니다."
        ),
        "changes.none": "기록된 변경이 없습니다.",
        "changes.undo": "이 변경 실행 취소",
        "changes.undone": "실행 취소됨: {label}",
        "changes.refused": "실행 취소 거부됨",
        "changes.files": "파일",
        "changes.binary": "(바이너리 내용)",
        "status.title": "상태",
        "status.vault": "볼트",
        "status.db": "인덱스",
        "status.files": "파일",
        "status.chunks": "청크",
        "status.pass2": "2단계 (고품질 벡터)",
        "status.last_run": "마지막 인덱싱",
        "status.never": "없음",
        "status.interrupted": "중단됨",
        "status.missing": "아직 인덱스가 없습니다. 다시 인덱싱을 누르세요.",
        "status.doctor": "점검",
        "status.reindex": "다시 인덱싱",
        "status.reindex.running": "인덱싱 중…",
        "status.reindex.done": "인덱스가 최신입니다.",
        "status.reindex.failed": "인덱싱 실패",
        "status.problems": "문제가 있는 노트",
        "error.title": "문제가 발생했습니다",
        "error.fix": "해결 방법",
        "error.notfound": "그런 페이지가 없습니다.",
        "nav.chat": "채팅",
        "chat.title": "채팅",
        "chat.intro": (
            "노트에 대해 물어보세요. 답변이 실시간으로 표시되고 사용한 노트가 출처로 나옵니다."
        ),
        "chat.question": "질문",
        "chat.send": "묻기",
        "chat.stop": "중지",
        "chat.you": "나",
        "chat.answer": "답변",
        "chat.sources": "출처",
        "chat.unresolved": "어떤 노트와도 맞지 않는 인용",
        "chat.tools": "도구",
        "chat.stopped": "중지됨.",
        "chat.saved": "대화 {id}로 저장됨.",
        "nav.conversations": "대화",
        "conv.title": "저장된 대화",
        "conv.search": "대화 검색",
        "conv.none": "대화가 없습니다.",
        "conv.export": "마크다운으로 내보내기",
        "conv.messages": "메시지 {count}개",
        "chat.confirm": "이 변경을 허용할까요?",
        "chat.yes": "예",
        "chat.no": "아니요",
        "chat.always": "항상 (이 대화에서)",
        "chat.expired": "더 이상 답을 기다리지 않습니다.",
        "chat.effort": "추론 강도",
        "chat.effort.default": "설정대로",
        "chat.attach": "파일 첨부",
        "chat.attach.hint": "또는 여기로 끌어다 놓기: 텍스트, 마크다운, 이미지, PDF",
        "skip": "본문으로 건너뛰기",
    },
    "ja": {
        "app": "vaultctx",
        "nav.search": "検索",
        "nav.changes": "変更履歴",
        "nav.status": "状態",
        "nav.language": "言語",
        "search.title": "検索",
        "search.query": "ノートを検索",
        "search.button": "検索",
        "search.filters": "フィルター",
        "search.folder": "フォルダー",
        "search.tags": "タグ（カンマ区切り）",
        "search.since": "更新日（から）",
        "search.until": "更新日（まで）",
        "search.where": "フロントマターの条件（1行に1つ）",
        "search.mode": "方式",
        "search.mode.hybrid": "ハイブリッド",
        "search.mode.bm25": "キーワード (BM25)",
        "search.mode.vector": "ベクトル",
        "search.graph": "リンクをたどる（グラフ）",
        "search.depth": "グラフの深さ",
        "search.results": "結果",
        "search.none": "一致するノートはありません。",
        "search.count": "{count} 件、{ms} ms",
        "search.score": "スコア",
        "search.hint": "入力して Enter。↓/↑ で結果を移動、Enter で開く、/ で検索欄へ。",
        "note.headings": "見出し",
        "note.outlinks": "このノートからのリンク",
        "note.backlinks": "このノートへのリンク",
        "note.similar": "似たノート",
        "note.obsidian": "Obsidian で開く",
        "note.none": "なし",
        "note.truncated": "ノートが長いため、冒頭のみ表示しています。",
        "note.line": "行",
        "changes.title": "変更履歴",
        "changes.intro": (
            "vaultctx が保管庫に加えたすべての変更（新しい順）。"
            "元に戻すは、ファイルがそのままなら最新の変更を戻します。"
        ),
        "changes.none": "記録された変更はありません。",
        "changes.undo": "この変更を元に戻す",
        "changes.undone": "元に戻しました: {label}",
        "changes.refused": "元に戻せませんでした",
        "changes.files": "ファイル",
        "changes.binary": "（バイナリ）",
        "status.title": "状態",
        "status.vault": "保管庫",
        "status.db": "インデックス",
        "status.files": "ファイル",
        "status.chunks": "チャンク",
        "status.pass2": "第2段階（高品質ベクトル）",
        "status.last_run": "最後のインデックス作成",
        "status.never": "なし",
        "status.interrupted": "中断",
        "status.missing": "インデックスがまだありません。再インデックスを押してください。",
        "status.doctor": "チェック",
        "status.reindex": "再インデックス",
        "status.reindex.running": "インデックス作成中…",
        "status.reindex.done": "インデックスは最新です。",
        "status.reindex.failed": "インデックス作成に失敗しました",
        "status.problems": "問題のあるノート",
        "error.title": "問題が発生しました",
        "error.fix": "対処方法",
        "error.notfound": "そのページはありません。",
        "nav.chat": "チャット",
        "chat.title": "チャット",
        "chat.intro": (
            "ノートについて質問してください。"
            "回答は届いた順に表示され、使ったノートが出典になります。"
        ),
        "chat.question": "質問",
        "chat.send": "質問する",
        "chat.stop": "停止",
        "chat.you": "あなた",
        "chat.answer": "回答",
        "chat.sources": "出典",
        "chat.unresolved": "どのノートにも一致しない引用",
        "chat.tools": "ツール",
        "chat.stopped": "停止しました。",
        "chat.saved": "会話 {id} として保存しました。",
        "nav.conversations": "会話",
        "conv.title": "保存した会話",
        "conv.search": "会話を検索",
        "conv.none": "会話はありません。",
        "conv.export": "Markdown で書き出す",
        "conv.messages": "{count} 件のメッセージ",
        "chat.confirm": "この変更を許可しますか？",
        "chat.yes": "はい",
        "chat.no": "いいえ",
        "chat.always": "常に（この会話）",
        "chat.expired": "もう回答を待っていません。",
        "chat.effort": "推論の強さ",
        "chat.effort.default": "設定どおり",
        "chat.attach": "ファイルを添付",
        "chat.attach.hint": "またはここにドロップ：テキスト、Markdown、画像、PDF",
        "skip": "本文へスキップ",
    },
}


def translate(language: str, key: str, **values: object) -> str:
    """The string for ``key`` in ``language`` (English when missing), with ``values`` filled in."""
    text = CATALOGUE.get(language, {}).get(key) or CATALOGUE[DEFAULT_LANGUAGE][key]
    return text.format(**values) if values else text


def choose_language(cookie: str | None, accept_language: str | None) -> str:
    """The switch's choice, else the browser's most preferred language we have, else English."""
    if cookie in LANGUAGES:
        return cookie
    for language in preferred_languages(accept_language or ""):
        primary = language.split("-")[0].lower()
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def preferred_languages(header: str) -> list[str]:
    """Accept-Language's tags, most preferred first (``q`` weights; malformed parts skipped)."""
    weighted: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and quality > 0:
            weighted.append((-quality, position, tag.strip()))
    return [tag for _, _, tag in sorted(weighted)]
