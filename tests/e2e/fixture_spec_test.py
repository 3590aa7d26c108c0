#!/usr/bin/python3
"""The fixture spec's contract, fixtures/spec.schema.json, held to both of its sides:
- the writer: every spec harness/engine/tree/fixture.cpp writes for a built-in scenario (the unit test
  FixtureSpecFiles leaves them in a folder) is valid;
- the readers: each key the schema names is read by exactly the readers its x-readers lists
  (fixtures/perl/tree.pl, fixtures/node/tree.js, fixtures/c-member/spec.c), and each key a reader
  reads is in the schema; the corpus in tests/e2e/fixture-spec/ is valid or refused as its folder
  says; each reader builds a valid spec they all read; and a spec that is not JSON, or that names
  no such node, is refused by each reader with the file and what is wrong, before it starts
  anything.
Skips (77) when Debian's python3-jsonschema, perl or node is absent.
  fixture_spec_test.py UNIT_TESTS BUILD_BIN_DIR SOURCE_DIR"""
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import jsonschema
except ImportError:
    print("skipped: python3-jsonschema is absent (Debian package)")
    sys.exit(77)
if not shutil.which("perl") or not shutil.which("node"):
    print("skipped: the fixtures' perl or node is absent")
    sys.exit(77)

unit_tests, bin_dir, src = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
# deep-chain's spec is a chain 200 members deep, and the validator recurses a few frames a level.
sys.setrecursionlimit(20000)
failures = []


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    failures.append(message)


schema = json.loads((src / "fixtures/spec.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def errors_of(spec):
    """Why `spec` is not valid, in the schema's words: the deepest reasons first."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(spec))
    if error is None:
        return None
    reasons = sorted(error.context or [error], key=lambda e: -len(e.absolute_path))
    said = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in reasons]
    return "; ".join(list(dict.fromkeys(said))[:3])  # each once, though both trees say it


# The writer: every spec a built-in scenario's case writes.
with tempfile.TemporaryDirectory() as out:
    run = subprocess.run([unit_tests, "--gtest_filter=FixtureSpecFiles.*"],
                         env={**os.environ, "REAPCHECK_SPEC_DIR": out},
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"the unit test writing the specs failed:\n{run.stdout}{run.stderr}")
    written = sorted(Path(out).glob("*.json"))
    if len(written) < 60:  # an agent's and a sibling's for each of the 39 built-in scenarios
        fail(f"only {len(written)} specs written")
    for file in written:
        why = errors_of(json.loads(file.read_text()))
        if why:
            fail(f"fixture.cpp's spec {file.name} is not valid: {why}")
    print(f"{len(written)} specs fixture.cpp writes for the built-in scenarios: checked")

# The readers: the keys each one reads, against the schema's x-readers.
READERS = {
    "tree.pl": (src / "fixtures/perl/tree.pl", r"->\{(\w+)\}"),
    "tree.js": (src / "fixtures/node/tree.js", r"\b(?:node|child)\.(\w+)\b"),
    "spec.c": (src / "fixtures/c-member/spec.c", r'strcmp\(key, "(\w+)"\)'),
}
read = {name: set(re.findall(pattern, path.read_text()))
        for name, (path, pattern) in READERS.items()}
declared = {name: set() for name in READERS}
for member in ("perl_member", "node_member"):
    for key, prop in schema["$defs"][member]["properties"].items():
        if "x-readers" not in prop:
            fail(f"{member}.{key} does not say which readers read it (x-readers)")
        for reader in prop.get("x-readers", []):
            declared[reader].add(key)
for name in READERS:
    for key in sorted(read[name] - declared[name]):
        fail(f"{name} reads '{key}', which the schema does not say it reads")
    for key in sorted(declared[name] - read[name]):
        fail(f"the schema says {name} reads '{key}', and it does not")
    if not read[name]:
        fail(f"no key found in {name}: the pattern that finds them is stale")

# The corpus: what the schema takes and what it refuses, each refusal with a reason.
corpus = src / "tests/e2e/fixture-spec"
for file in sorted((corpus / "valid").glob("*.json")):
    why = errors_of(json.loads(file.read_text()))
    if why:
        fail(f"valid/{file.name} is refused: {why}")
invalid = sorted((corpus / "invalid").glob("*.json"))
for file in invalid:
    why = errors_of(json.loads(file.read_text()))
    if not why:
        fail(f"invalid/{file.name} is taken")
    else:
        print(f"invalid/{file.name}: {why}")
if len(invalid) < 10:
    fail(f"only {len(invalid)} invalid specs in the corpus")


def refuses(name, argv, want, env=None, status=None):
    """Runs the reader with a readiness pipe; it must exit with an error matching `want`
    (and `status` when given) without announcing anything."""
    ready_r, ready_w = os.pipe()
    env = {**os.environ, "REAPCHECK_READY_FD": str(ready_w), **(env or {})}
    env = {k: v for k, v in env.items() if v is not None}
    proc = subprocess.Popen(argv, env=env, pass_fds=[ready_w], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    os.close(ready_w)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # it took the spec and built a tree: end what it started
        os.killpg(proc.pid, 9)
        proc.communicate()
        fail(f"{name}: still running after 30 s")
        return
    with os.fdopen(ready_r) as ready:
        announced = ready.read()
    if proc.returncode == 0 or (status is not None and proc.returncode != status):
        fail(f"{name}: exit {proc.returncode}")
    if not re.search(want, err, re.S):
        fail(f"{name}: stderr {err!r} does not match {want!r}")
    if announced:
        fail(f"{name}: announced {announced!r}")


def accepts(name, argv, roles, tmp):
    """Runs the reader with a readiness pipe and socket, as a case does (a node member's children
    do not inherit the pipe): it must announce each of `roles`; then the tree it built, its own
    process group, is ended."""
    ready_r, ready_w = os.pipe()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(Path(tmp) / "ready.sock"))
    listener.listen()
    env = {**os.environ, "REAPCHECK_READY_FD": str(ready_w),
           "REAPCHECK_READY_SOCKET": str(Path(tmp) / "ready.sock")}
    proc = subprocess.Popen(argv, env=env, pass_fds=[ready_w], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    os.close(ready_w)
    text = b""
    ready_at = time.monotonic() + 30
    while text.count(b"\n") < len(roles) and time.monotonic() < ready_at:
        readable = select.select([ready_r, listener], [], [], ready_at - time.monotonic())[0]
        if ready_r in readable:
            text += os.read(ready_r, 4096)
        if listener in readable:
            with listener.accept()[0] as connection:
                text += b"".join(iter(lambda: connection.recv(4096), b""))
    os.killpg(proc.pid, signal.SIGKILL)
    _, err = proc.communicate()
    os.close(ready_r)
    listener.close()
    os.unlink(Path(tmp) / "ready.sock")
    announced = sorted(line.split()[2] for line in text.decode().splitlines())
    if announced != sorted(roles):
        fail(f"{name}: announced {announced}, expected {roles}; stderr {err!r}")


# Each reader takes a spec every reader reads (roles, children, a signal ignored) and builds it.
c_member = str(bin_dir / "reapcheck-c-member")
with tempfile.TemporaryDirectory() as tmp:
    spec, c_spec = Path(tmp) / "spec.json", Path(tmp) / "c-spec.json"
    spec.write_text('{"role":"agent","ignore":["HUP"],"children":[{"role":"child"}]}\n')
    c_spec.write_text('{"role":"agent","c_member":true,"children":[{"role":"child",'
                      '"c_member":true}]}\n')
    for file in (spec, c_spec):
        if why := errors_of(json.loads(file.read_text())):
            fail(f"{file.name} is not valid: {why}")
    accepts("tree.pl", ["perl", READERS["tree.pl"][0], spec], ["agent", "child"], tmp)
    accepts("tree.js", ["node", READERS["tree.js"][0], spec], ["agent", "child"], tmp)
    accepts("a C member", [c_member, "tree", c_spec, ""], ["agent", "child"], tmp)

# Readers refuse what is not a spec, naming the file and the place.
with tempfile.TemporaryDirectory() as tmp:
    comma = Path(tmp) / "comma.json"
    comma.write_text('{"role":"a","children":[{"role":"b"},]}\n')
    refuses("tree.pl, a trailing comma", ["perl", READERS["tree.pl"][0], comma],
            r"tree\.pl: .*comma\.json: expected a value at offset 37")
    refuses("tree.js, a trailing comma", ["node", READERS["tree.js"][0], comma],
            r"tree\.js: .*comma\.json: .*not valid JSON")
    refuses("a C member, a trailing comma", [c_member, "tree", comma, ""],
            r"comma\.json: expected a value at offset 37", status=1)
    missing = Path(tmp) / "missing.json"
    refuses("tree.pl, no spec", ["perl", READERS["tree.pl"][0], missing],
            r"tree\.pl: cannot read .*missing\.json")
    refuses("tree.js, no spec", ["node", READERS["tree.js"][0], missing],
            r"tree\.js: .*missing\.json: ENOENT")
    c_spec = Path(tmp) / "c.json"
    c_spec.write_text('{"role":"a","x":["\\"\\u0041"],"children":[{"role":"b","children":[]}]}\n')
    refuses("a C member, a node the spec does not have", [c_member, "tree", c_spec, "0.0"],
            r"has no node 0\.0", status=1)
    refuses("a C member with nowhere to announce itself", [c_member, "tree", c_spec, ""],
            r"neither REAPCHECK_READY_FD nor REAPCHECK_READY_SOCKET", status=2,
            env={"REAPCHECK_READY_FD": None, "REAPCHECK_READY_SOCKET": None})
    roleless = Path(tmp) / "roleless.json"
    roleless.write_text('{"role":"a","children":[{"children":[]}]}\n')
    refuses("a C member, a member without a role", [c_member, "tree", roleless, ""],
            r"roleless\.json: expected a member with a role", status=1)

print(f"fixture-spec: {len(failures)} failed")
sys.exit(1 if failures else 0)
