#!/usr/bin/env bash
# Installs the real coding-agent CLIs that the tool tests drive (Claude Code and Codex) with npm into
# a project-local folder, once. Prints the folder's bin/ path on stdout.
# Usage: scripts/install-agent-clis.sh [PREFIX]
#   PREFIX defaults to $SOCRATIC_AGENT_CLI_PREFIX, else ~/.cache/socratic/agent-clis.
# Exit 77 when npm itself is unavailable (tests skip then); any other failure is an error.
set -euo pipefail

prefix="${1:-${SOCRATIC_AGENT_CLI_PREFIX:-${HOME:-/tmp}/.cache/socratic/agent-clis}}"
# Versions the tests were written against (FIELD-NOTES section 7); override to try newer ones.
claude_pkg="${SOCRATIC_CLAUDE_CODE_PACKAGE:-@anthropic-ai/claude-code}"
codex_pkg="${SOCRATIC_CODEX_PACKAGE:-@openai/codex}"

if ! command -v npm >/dev/null 2>&1; then
  echo "install-agent-clis: npm is not installed; the real-CLI tests are skipped" >&2
  exit 77
fi

mkdir -p "$prefix"
stamp="$prefix/.installed"
want="$claude_pkg $codex_pkg"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$prefix/node_modules/.bin/claude" && -x "$prefix/node_modules/.bin/codex" ]]; then
  echo "$prefix/node_modules/.bin"
  exit 0
fi

# One process at a time: several test binaries may call this concurrently.
exec 9>"$prefix/.lock"
flock 9
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$prefix/node_modules/.bin/claude" && -x "$prefix/node_modules/.bin/codex" ]]; then
  echo "$prefix/node_modules/.bin"
  exit 0
fi
[[ -f "$prefix/package.json" ]] || echo '{"name":"socratic-agent-clis","private":true}' > "$prefix/package.json"
echo "install-agent-clis: npm install $want into $prefix (several hundred MB, once)" >&2
( cd "$prefix" && npm install --no-audit --no-fund --loglevel=error $want >&2 )
echo "$want" > "$stamp"
echo "$prefix/node_modules/.bin"
