# shellcheck shell=bash
# Prism (Stoplight's OpenAPI mock) for the Twilio contract test
# (tests/twilio_contract.rs). Sourced by .ci/run under `set -euo pipefail`:
# installs @stoplight/prism-cli into a cache directory once, then exports the
# binary's path and makes the contract test mandatory.
# Pinned: 5.14.2 is the last Prism release that runs on Node 20.
agentcall_prism_version="5.14.2"
agentcall_prism_dir="${XDG_CACHE_HOME:-$HOME/.cache}/agentcall-prism/${agentcall_prism_version}"
agentcall_prism_bin="${agentcall_prism_dir}/node_modules/.bin/prism"
if [ ! -x "$agentcall_prism_bin" ]; then
    echo "== installing @stoplight/prism-cli@${agentcall_prism_version} into ${agentcall_prism_dir}"
    mkdir -p "$agentcall_prism_dir"
    npm install --prefix "$agentcall_prism_dir" --no-audit --no-fund --loglevel=error \
        "@stoplight/prism-cli@${agentcall_prism_version}" >/dev/null
fi
# Fails the sourcing script (set -e) when the install left no working binary.
"$agentcall_prism_bin" --version >/dev/null
export AGENTCALL_PRISM="$agentcall_prism_bin"
export AGENTCALL_REQUIRE_PRISM=1
echo "== Prism ${agentcall_prism_version} for the Twilio contract test: ${AGENTCALL_PRISM}"
