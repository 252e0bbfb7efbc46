#!/usr/bin/env bash
# The MCP Inspector CLI as a third-party client of `python -m vaultctx serve` (stdio) on an indexed
# copy of the example vault: the tool list, a search, a scrubbed note and a refused path.
#
#   tests/mcp/inspector_check.sh
#
# Environment: PYTHON (default: the repo's .venv python), INSPECTOR (default:
# `npx --yes @modelcontextprotocol/inspector@0.15.0`; point it at a local install to run offline, e.g.
# INSPECTOR=node_modules/.bin/mcp-inspector).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-$repo/.venv/bin/python}
read -r -a inspector <<<"${INSPECTOR:-npx --yes @modelcontextprotocol/inspector@0.15.0}"

work=$(mktemp -d)
# `serve` is a relay to the user's engine (docs/mcp.md): this check's engine runs in its own
# runtime folder and is stopped at the end.
export VAULTCTX_RUNTIME_DIR="$work/rt"
trap '"$python" -m vaultctx engine stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cp -R "$repo/examples/vault" "$work/vault"
export PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}"
"$python" -m vaultctx index --vault "$work/vault" --db "$work/index.db" --fast --quiet

server=(-e "PYTHONPATH=$PYTHONPATH" -e "VAULTCTX_RUNTIME_DIR=$VAULTCTX_RUNTIME_DIR" "$python" -m vaultctx serve
        --vault "$work/vault" --db "$work/index.db")

call() {  # call OUTPUT_FILE INSPECTOR_ARGS... : run the Inspector CLI, keep its JSON output
  local out=$1
  shift
  "${inspector[@]}" --cli "${server[@]}" "$@" >"$out"
}

call "$work/tools.json" --method tools/list
call "$work/search.json" --method tools/call --tool-name obsidian_search \
  --tool-arg "query=sqlite wal checkpoint" --tool-arg limit=3
call "$work/note.json" --method tools/call --tool-name obsidian_read_note \
  --tool-arg "file_path=10-projects/billing-service/Deploy config.md"
call "$work/refused.json" --method tools/call --tool-name obsidian_read_note \
  --tool-arg "file_path=../../etc/passwd"

"$python" - "$work" <<'PY'
import json
import sys
from pathlib import Path

work = Path(sys.argv[1])
def load(name):
    return json.loads((work / f"{name}.json").read_text())

tools = {tool["name"]: tool for tool in load("tools")["tools"]}
expected = {"obsidian_search", "obsidian_read_note", "obsidian_list_notes", "obsidian_get_context"}
assert set(tools) == expected, sorted(tools)
for tool in tools.values():
    assert tool["annotations"]["readOnlyHint"] is True, tool["name"]
    assert "outputSchema" in tool, tool["name"]

search = load("search")
assert search["isError"] is False, search
paths = [hit["path"] for hit in search["structuredContent"]["results"]]
assert "30-resources/databases/SQLite tuning.md" in paths, paths
assert "SQLite tuning" in search["content"][0]["text"]

note = load("note")
assert note["isError"] is False, note
text = note["content"][0]["text"]
assert "[REDACTED:" in text and "AKIAZ7VRSQ5TJN2UEXAM" not in text

refused = load("refused")
assert refused["isError"] is True, refused
assert "path refused" in json.loads(refused["content"][0]["text"])["error"]
print(f"inspector check passed: {len(tools)} tools, {len(paths)} search results")
PY
