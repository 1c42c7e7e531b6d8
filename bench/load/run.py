#!/usr/bin/env python3
"""Load benchmark: agentcall's example server against a framework floor.

Builds the release example server (features sqlite, postgres) and the
benchmark crate's two helpers (`floor`, `webhook_sink`), then drives them with
wrk on loopback, one scenario after another, each for a bounded time:

* placement (POST /v1/agent/calls), get and list on the in-memory store,
  SQLite and PostgreSQL (one account, 16 accounts, two instances), against
  the floor (bearer check + JSON parse + 201/200 on axum);
* placement with a webhook URL to a local receiver, and webhook delivery
  (events/s reaching the receiver) against the same HTTP client posting the
  same body in a loop;
* resident memory per open call and per ended call kept, and whether it
  stays flat once retention applies;
* transactions per second an idle server costs PostgreSQL;
* start-up: exec to `listening on`.

Usage (from the repository root; needs wrk, `apt-get install wrk`):

    python3 bench/load/run.py [--seconds 10] [--connections 16] [--postgres URL]

PostgreSQL rows need --postgres (or AGENTCALL_TEST_POSTGRES); without it they
are skipped. Prints one markdown report on stdout (progress on stderr).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

KEY = "key_load"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.path.join(TARGET, "release", "examples", "server")
FLOOR = os.path.join(TARGET, "release", "floor")
SINK = os.path.join(TARGET, "release", "webhook_sink")
WORK = tempfile.mkdtemp(prefix="agentcall-load-")


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def build():
    log("== building release binaries")
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "server",
                    "--features", "sqlite,postgres"], cwd=ROOT, check=True)
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "agentcall-bench",
                    "--bin", "floor", "--bin", "webhook_sink"], cwd=ROOT, check=True)


class Process:
    """A child that prints `listening on URL` once ready."""

    def __init__(self, argv):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(os.path.join(WORK, "stderr.log"), "ab"),
                                     text=True)
        line = self.proc.stdout.readline()
        self.ready_after = time.perf_counter() - self.started
        if not line.startswith("listening on "):
            self.proc.kill()
            raise SystemExit(f"{argv[0]} did not start: {line!r} (see {WORK}/stderr.log)")
        self.url = line.split("listening on ", 1)[1].strip()

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def server(store="memory", accounts=1, ring_ms=3_600_000, retention_sec=24 * 3600, instance=None):
    config = {
        "listen": "127.0.0.1:0",
        "store": store,
        "allowInsecureLoopbackWebhooks": True,
        "accounts": [{
            "id": f"acct_load{i}", "apiKeys": [KEY if i == 0 else f"{KEY}{i}"],
            "numbers": ["+14155550100"], "defaultCallerId": "+14155550100",
            "callsPerMinute": 100_000_000, "minuteCap": 1_000_000_000_000,
            "webhookSecret": f"whsec_load{i}",
        } for i in range(accounts)],
        "simulation": {"ringMs": ring_ms, "talkMs": 10},
        "memoryRetention": {"endedCallsSec": retention_sec},
        "webhookRetryScheduleMs": [0, 1000, 5000],
    }
    if instance:
        config["instanceId"] = instance
    path = os.path.join(WORK, f"config-{time.monotonic_ns()}.json")
    with open(path, "w") as file:
        json.dump(config, file)
    return Process([SERVER, "--config", path])


def body(to="+14155550125", webhook=None):
    request = {"to": to, "objective": "Confirm the delivery window for order 1234 tomorrow",
               "fields": [{"name": "window", "type": "string", "description": "the delivery window"}]}
    if webhook:
        request["webhookUrl"] = webhook
    return json.dumps(request)


def lua(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as file:
        file.write(text)
    return path


def post_script(payload, accounts=1):
    keys = ", ".join(f'"Bearer {KEY if i == 0 else KEY + str(i)}"' for i in range(accounts))
    return lua(f"post-{time.monotonic_ns()}.lua", f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local body = {json.dumps(payload)}
local keys = {{ {keys} }}
local n = 0
request = function()
  n = n + 1
  wrk.headers["Authorization"] = keys[(n % #keys) + 1]
  return wrk.format("POST", "/v1/agent/calls", wrk.headers, body)
end
""")


def get_script(path):
    return lua(f"get-{time.monotonic_ns()}.lua", f"""
wrk.headers["Authorization"] = "Bearer {KEY}"
request = function() return wrk.format("GET", "{path}") end
""")


def wrk(url, script, seconds, connections):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script, url],
                         capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)

    def pct(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return value * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    return {"rate": rate, "total": total, "p50": pct(50), "p99": pct(99),
            "bad": int(bad.group(1)) if bad else 0, "errors": errors.group(1) if errors else ""}


def request(method, url, payload=None):
    data = payload.encode() if payload else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.loads(response.read() or b"null")


def fmt_ms(value):
    return f"{value:.2f} ms" if value < 10 else f"{value:.0f} ms"


ROWS = []


def row(label, ours, floor=None):
    ratio = f"{ours['rate'] / floor['rate']:.2f}×" if floor else ""
    p99_ratio = f"{ours['p99'] / floor['p99']:.1f}×" if floor else ""
    extra = ""
    if ours["bad"] or ours["errors"]:
        extra = f" ({ours['bad']} non-2xx; {ours['errors'] or 'no socket errors'})"
    ROWS.append(f"| {label} | {ours['rate']:,.0f}/s | {fmt_ms(ours['p50'])} | {fmt_ms(ours['p99'])}{extra} | "
                + (f"{floor['rate']:,.0f}/s | {fmt_ms(floor['p99'])} | {ratio} | {p99_ratio} |" if floor else " | | | |"))
    log(ROWS[-1])


def api_rows(label, proc, floor_rows, args, accounts=1):
    base = proc.url
    placed = wrk(base, post_script(body(), accounts), args.seconds, args.connections)
    row(f"{label}: POST /v1/agent/calls" + (f", {accounts} accounts" if accounts > 1 else ""), placed,
        floor_rows.get("post"))
    if accounts > 1:
        return placed
    call = request("POST", f"{base}/v1/agent/calls", body())
    row(f"{label}: GET /v1/agent/calls/{{id}}",
        wrk(base, get_script(f"/v1/agent/calls/{call['callId']}"), args.seconds, args.connections),
        floor_rows.get("get"))
    row(f"{label}: GET /v1/agent/calls?limit=20",
        wrk(base, get_script("/v1/agent/calls?limit=20"), args.seconds, args.connections), floor_rows.get("list"))
    return placed


def webhook_rows(label, proc, floors, delivery_floor, args, notes):
    """Placement with a webhook (calls declined at once: one event each) to
    a receiver that answers nothing for the placements' duration and 2 s
    more (each attempt waits, within the server's 15 s attempt timeout), so
    the events queue in the outbox; then the rate at which that backlog
    reaches the receiver once it answers."""
    hold = (args.seconds + 2) * 1000
    sink = Process([SINK, "serve", "127.0.0.1:0", str(hold)])
    opens = sink.started + hold / 1000
    hooked = wrk(proc.url, post_script(body(to="+14155550123", webhook=sink.url + "/")), args.seconds,
                 args.connections)
    row(f"{label}: POST with a webhook (declined at once: one event each)", hooked, floors["post"])
    expected = hooked["total"] - hooked["bad"]
    time.sleep(max(0.0, opens - time.perf_counter()))
    started = time.perf_counter()
    samples = [(started, sink_count(sink))]
    while samples[-1][1] < expected and time.perf_counter() - started < 120:
        time.sleep(0.05)
        samples.append((time.perf_counter(), sink_count(sink)))
        if len(samples) > 60 and samples[-1][1] == samples[-60][1]:
            break
    delivered = samples[-1][1]
    took = next((t for t, n in samples if n >= expected), samples[-1][0]) - started
    rate = delivered / took if took > 0 else float("nan")
    notes.append(f"webhook delivery on {label}: a backlog of {expected:,} events reached the receiver in "
                 f"{took:.1f} s once it answered: {rate:,.0f} events/s ({delivered:,} delivered in all); floor "
                 f"(reqwest, same body, 8 in flight like `per_endpoint_concurrency`): {delivery_floor:,.0f}/s; "
                 f"ratio {rate / delivery_floor:.2f}×")
    sink.stop()


def pg_plans(url):
    """The plans PostgreSQL chose for every statement the server ran while
    placing, reading, listing, delivering webhooks and idling, taken with
    auto_explain on the tables the rows above filled. Returns one line per
    statement, the plan nodes that read a table, and whether any scans a
    whole table."""
    def psql(sql):
        return subprocess.run(["psql", url, "-tAc", sql], capture_output=True, text=True, check=True).stdout.strip()

    log_file = psql("SELECT pg_current_logfile()") or \
        f"/var/log/postgresql/postgresql-{psql('SHOW server_version_num')[:2]}-main.log"
    start = os.path.getsize(log_file)
    database = psql("SELECT current_database()")
    for setting in ("session_preload_libraries = 'auto_explain'", "auto_explain.log_min_duration = 0"):
        psql(f"ALTER DATABASE \"{database}\" SET {setting}")
    try:
        # New connections load auto_explain: a fresh server on the same tables.
        fresh = server(store=url, ring_ms=0, instance="plans")
        try:
            sink = Process([SINK, "serve", "127.0.0.1:0"])
            wrk(fresh.url, post_script(body(to="+14155550123", webhook=sink.url + "/")), 2, 4)
            wrk(fresh.url, post_script(body()), 2, 4)
            call = request("POST", f"{fresh.url}/v1/agent/calls", body())
            wrk(fresh.url, get_script(f"/v1/agent/calls/{call['callId']}"), 1, 4)
            wrk(fresh.url, get_script("/v1/agent/calls?limit=20"), 1, 4)
            time.sleep(11)  # a lease beat: renewal and the takeover query
            sink.stop()
        finally:
            fresh.stop()
    finally:
        for setting in ("session_preload_libraries", "auto_explain.log_min_duration"):
            psql(f"ALTER DATABASE \"{database}\" RESET {setting}")
    with open(log_file, errors="replace") as file:
        file.seek(start)
        text = file.read()
    plans = {}
    for entry in re.split(r"\n(?=\S)", text):
        if "plan:" not in entry or "Query Text:" not in entry:
            continue
        query = re.search(r"Query Text: (.*)", entry).group(1).strip()
        query = re.sub(r"\$\d+(, \$\d+)+", "$…", query)[:140]
        scans = set(re.findall(r"((?:Parallel )?(?:Seq Scan|Index Only Scan(?: Backward)?|Index Scan(?: Backward)?|Bitmap Heap Scan|Bitmap Index Scan)"
                                r"(?: using \w+)? on \w+)", entry))
        plans.setdefault(query, set()).update(scans)
    lines = []
    for query, scans in sorted(plans.items()):
        verdict = "**whole table**" if any("Seq Scan" in scan for scan in scans) else "index" if scans else "no table read"
        lines.append(f"| `{query}` | {', '.join(sorted(scans)) or '–'} | {verdict} |")
    return lines


def floor_rows(args):
    floor = Process([FLOOR, "127.0.0.1:0", KEY])
    rows = {
        "post": wrk(floor.url, post_script(body()), args.seconds, args.connections),
        "get": wrk(floor.url, get_script("/v1/agent/calls/call_1"), args.seconds, args.connections),
        "list": wrk(floor.url, get_script("/v1/agent/calls?limit=20"), args.seconds, args.connections),
    }
    floor.stop()
    for name, result in rows.items():
        log(f"floor {name}: {result}")
    return rows


def pg_xacts(url):
    out = subprocess.run(["psql", url, "-tAc",
                          "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"],
                         capture_output=True, text=True, check=True).stdout
    return int(out.strip())


def pg_idle_xacts(url, baseline, settle=2):
    """Transactions per second the database commits over 10 s, after
    `settle` s, less `baseline` (its rate with no server running)."""
    time.sleep(settle)
    before = pg_xacts(url)
    time.sleep(10)
    return (pg_xacts(url) - before) / 10 - baseline


def pg_reset(url):
    subprocess.run(["psql", url, "-qc", "DROP SCHEMA public CASCADE; CREATE SCHEMA public;"],
                   capture_output=True, check=True)


def sink_count(sink):
    with urllib.request.urlopen(f"{sink.url}/count", timeout=10) as response:
        return int(response.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--postgres", default=os.environ.get("AGENTCALL_TEST_POSTGRES"))
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    if not args.skip_build:
        build()
    notes = []
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()

    log("== floor")
    floors = floor_rows(args)

    log("== in-memory store")
    proc = server()
    rss_before = proc.rss_kib()
    placed = api_rows("memory", proc, floors, args)
    ok = placed["total"] - placed["bad"]
    rss_after = proc.rss_kib()
    notes.append(f"memory per open (ringing) call: {(rss_after - rss_before) * 1024 / max(ok, 1):,.0f} B "
                 f"(RSS {rss_before / 1024:.0f} MiB → {rss_after / 1024:.0f} MiB over {ok:,} calls)")
    proc.stop()

    log("== ended calls kept, and retention")
    proc = server(ring_ms=0, retention_sec=args.seconds)
    rss_before = proc.rss_kib()
    ended = wrk(proc.url, post_script(body(to="+14155550123")), args.seconds, args.connections)
    time.sleep(1)
    rss_kept = proc.rss_kib()
    ok = ended["total"] - ended["bad"]
    row("memory: POST, calls declined at once (kept ended)", ended, floors["post"])
    notes.append(f"memory per ended (declined) call kept: {(rss_kept - rss_before) * 1024 / max(ok, 1):,.0f} B "
                 f"(RSS {rss_before / 1024:.0f} MiB → {rss_kept / 1024:.0f} MiB over {ok:,} calls)")
    # The same load for three retention periods more; once calls older than
    # the retention are dropped, resident memory should stop growing.
    load = subprocess.Popen(["wrk", "-t2", f"-c{args.connections}", f"-d{args.seconds * 3}s", "-s",
                             post_script(body(to="+14155550123")), proc.url], stdout=subprocess.DEVNULL)
    samples = []
    for period in range(3):
        time.sleep(args.seconds)
        samples.append(proc.rss_kib())
    load.wait()
    notes.append(f"with {args.seconds} s retention, under the same load for {args.seconds * 3} s more: RSS "
                 + ", ".join(f"{rss / 1024:.0f} MiB" for rss in samples)
                 + f" after each {args.seconds} s (was {rss_kept / 1024:.0f} MiB)")
    proc.stop()

    sink = Process([SINK, "serve", "127.0.0.1:0"])
    event_body = os.path.join(WORK, "event.json")
    with open(event_body, "w") as file:
        json.dump({"type": "call.declined", "data": json.loads(body(to="+14155550123"))}, file)
    floor_out = subprocess.run([SINK, "post", sink.url + "/", event_body, str(args.seconds), "8"],
                               capture_output=True, text=True, check=True).stdout
    delivery_floor = float(re.search(r": ([\d.]+)/s", floor_out).group(1))
    sink.stop()
    log(f"delivery floor: {delivery_floor:,.0f}/s")

    log("== webhooks, in-memory store")
    proc = server(ring_ms=0)
    webhook_rows("memory", proc, floors, delivery_floor, args, notes)
    proc.stop()

    log("== SQLite")
    db = os.path.join(WORK, "load.db")
    proc = server(store=f"sqlite://{db}")
    api_rows("SQLite", proc, floors, args)
    proc.stop()

    if args.postgres:
        log("== PostgreSQL")
        pg_reset(args.postgres)
        # What the database does with no server at all (autovacuum, the
        # statistics, this script's own queries): subtracted below.
        baseline = pg_idle_xacts(args.postgres, 0.0, settle=0)
        notes.append(f"PostgreSQL transactions per second with no server running (subtracted below): {baseline:.1f}")
        proc = server(store=args.postgres, accounts=16)
        api_rows("PostgreSQL", proc, floors, args)
        api_rows("PostgreSQL", proc, floors, args, accounts=16)
        notes.append(f"PostgreSQL transactions per second, server idle with the calls above still ringing: "
                     f"{pg_idle_xacts(args.postgres, baseline):.1f}")
        proc.stop()
        log("== PostgreSQL plans")
        plan_lines = pg_plans(args.postgres)
        pg_reset(args.postgres)
        proc = server(store=args.postgres, ring_ms=0)
        webhook_rows("PostgreSQL", proc, floors, delivery_floor, args, notes)
        proc.stop()
        pg_reset(args.postgres)
        one = server(store=args.postgres, accounts=16, instance="load-a")
        two = server(store=args.postgres, accounts=16, instance="load-b")
        # Start-up (migration check, recovery, first worker rounds) first,
        # then the steady state the goal is about.
        starting = pg_idle_xacts(args.postgres, baseline, settle=0)
        steady = pg_idle_xacts(args.postgres, baseline, settle=10)
        notes.append(f"PostgreSQL transactions per second, two fresh idle servers together: "
                     f"{steady:.1f} from their 20th second on ({starting:.1f} in their first 10 s, start-up)")
        script = post_script(body(), 16)
        both = [subprocess.Popen(["wrk", "-t1", f"-c{args.connections // 2}", f"-d{args.seconds}s", "-s", script,
                                  p.url], stdout=subprocess.PIPE, text=True) for p in (one, two)]
        rates = [float(re.search(r"Requests/sec:\s+([\d.]+)", w.communicate()[0]).group(1)) for w in both]
        notes.append(f"PostgreSQL, two instances, 16 accounts, {args.connections // 2} connections each: "
                     f"{sum(rates):,.0f} placements/s ({' + '.join(f'{r:,.0f}' for r in rates)})")
        one.stop()
        two.stop()
        pg_reset(args.postgres)
    else:
        notes.append("PostgreSQL: skipped (no --postgres URL)")
        plan_lines = []

    log("== start-up")
    times = []
    for _ in range(10):
        proc = server()
        times.append(proc.ready_after * 1000)
        proc.stop()
    times.sort()
    notes.append(f"start-up, exec to `listening on` (memory store), median of 10: {times[5]:.1f} ms "
                 f"(min {times[0]:.1f}, max {times[-1]:.1f})")

    print(f"Load run at `{commit}`: `python3 bench/load/run.py --seconds {args.seconds} "
          f"--connections {args.connections}`; wrk 2 threads, {args.connections} connections, "
          f"{args.seconds} s per row, loopback.\n")
    print("| scenario | ours | p50 | p99 | floor | floor p99 | throughput ÷ floor | p99 ÷ floor |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for line in ROWS:
        print(line)
    print()
    for note in notes:
        print(f"* {note}")
    if plan_lines:
        print("\nPostgreSQL plans of the server's statements (auto_explain, tables as the rows above left them):\n")
        print("| statement | tables read | verdict |")
        print("|---|---|---|")
        for line in plan_lines:
            print(line)


if __name__ == "__main__":
    main()
