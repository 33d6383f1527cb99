"""Peer benchmark: Porcupine and fisheye on the same files, as a user runs each.

Porcupine (github.com/anishathalye/porcupine, Go) is built from its source with the
Go toolchain (Debian: ``apt-get install -y golang-go``) into a small command,
``bench/porcupine_peer/main.go``, that checks Jepsen etcd logs and fisheye JSON
histories of registers with Porcupine's ``CheckEvents``/``CheckOperations``
(partitioned by register; indeterminate operations may take effect any time after
their invocation, as in Porcupine's own etcd test).  Without Go, or without
Porcupine's source, the benchmark says why and stops (exit status 0, nothing
measured).

Porcupine's source and its etcd logs (``test_data/jepsen/etcd_*.log``, 102 files):
``--porcupine DIR`` (a clone of the repository), else ``$PORCUPINE_DIR``, else the
Go module cache (``go mod download github.com/anishathalye/porcupine@latest`` fills
it where the Go module proxy answers: the module's zip holds ``test_data``).

Measured, back to back in one run; each command's wall time and CPU time (user and
system, every thread: Porcupine checks the registers in parallel), the CPU time being
the one to read on a loaded machine:

1. the etcd logs in process: Porcupine's check time per file (parsing excluded) and
   fisheye's (``fisheye.checker.engines.check`` under ``lin``, loading excluded), for
   all of them and for the non-linearizable ones; the verdicts must agree;
2. one batch command over the logs (``porcupine_peer FILES`` against ``fisheye check
   FILES --model lin``), wall time;
3. one command per file, total wall time, and the median file;
4. Jepsen-like register histories of ``--ops`` operations (10 keys, 20 clients,
   ``bench_lin.jepsen_like``, seed 1), 0 % and 1 % indeterminate writes: linearizable
   by construction, with one late read corrupted (often not linearizable: both
   verdicts are printed), and with one late read of a value never written (not
   linearizable): one command each, wall time, ``--timeout`` seconds at most each.  Each
   tool prints its verdict line (``fisheye check FILE --model lin``, the default
   output, as ``porcupine_peer`` prints one line per file); ``--json`` would add the
   witness, a sequence of every operation (1.5 MB and about 0.05 s at 100,000
   operations), which Porcupine does not write.

Usage: ``.venv/bin/python bench/bench_porcupine.py [--porcupine DIR] [--ops 100000]
[--timeout 300] [--repeat N] [--skip-large | --only-large]``.  Prints a table with the
ratios fisheye / Porcupine (below 1: fisheye is faster).  ``--repeat N``: the batch
command (2) and each large history (4) run N times per tool, the two tools alternated,
and the table gives the medians (wall and CPU each) and their ratio.  Porcupine does not
decide the 100,000-operation history with 1 % indeterminate writes and a read of a value
never written: it runs until
``--timeout`` (measured: 300 s, 17 GB of resident memory); a smaller ``--timeout``
bounds both.

fisheye's ``lin`` check of a large history runs its search compiled ahead of time
(``scripts/bootstrap.sh`` builds it; without it, numba's just-in-time version is loaded,
about 0.2 s more per command).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
FISHEYE = Path(sys.executable).parent / "fisheye"
MODULE = "github.com/anishathalye/porcupine"


def say(text: str) -> None:
    print(text, flush=True)


def porcupine_source(given: str | None, go: str) -> tuple[Path | None, str]:
    """A directory holding Porcupine's source and test data, or None and why not."""
    for candidate in (given, os.environ.get("PORCUPINE_DIR")):
        if candidate:
            path = Path(candidate)
            if (path / "go.mod").is_file() and (path / "test_data" / "jepsen").is_dir():
                return path, f"{path} (given)"
            return None, f"{path} is not a clone of {MODULE} (no go.mod or test_data/jepsen)"
    cache = subprocess.run([go, "env", "GOMODCACHE"], capture_output=True, text=True).stdout.strip()
    found = sorted(glob.glob(os.path.join(cache, f"{MODULE}@*")))
    if found:
        return Path(found[-1]), f"{found[-1]} (the Go module cache)"
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([go, "mod", "download", "-json", f"{MODULE}@latest"], capture_output=True,
                              text=True, cwd=tmp, timeout=300)
    try:
        answer = json.loads(proc.stdout)
    except json.JSONDecodeError:
        answer = {"Error": (proc.stderr or proc.stdout).strip()}
    if answer.get("Dir"):
        return Path(answer["Dir"]), f"{answer['Dir']} (downloaded by go mod download)"
    return None, (f"the Go module proxy did not give {MODULE}: {answer.get('Error', 'no answer')}; "
                  f"pass --porcupine DIR, a clone of https://{MODULE}")


def build_peer(go: str, source: Path, out: Path) -> Path:
    """Build bench/porcupine_peer against the Porcupine source in ``source``."""
    work = out / "peer-src"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "porcupine_peer" / "main.go", work / "main.go")
    (work / "go.mod").write_text(f"module fisheye.bench/porcupine_peer\n\ngo 1.19\n\n"
                                 f"require {MODULE} v0.0.0\n\nreplace {MODULE} => {source}\n",
                                 encoding="utf-8")
    binary = out / "porcupine_peer"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off"}
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=work, env=env, check=True)
    return binary


class Timed:
    """Wall and CPU time (user + system, of the child processes) of a block."""

    wall: float
    cpu: float

    def __enter__(self) -> Timed:
        self.wall0, self.cpu0 = time.perf_counter(), _children_cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall0
        self.cpu = _children_cpu() - self.cpu0


def verdict_of(line: str) -> str:
    """The verdict of ``fisheye check``'s line for one file (``FILE: consistent under lin
    (...)``), ``error`` where there is none."""
    found = re.search(r": (consistent|violation|unknown) under ", line)
    return found.group(1) if found else "error"


def median_of(runs: list[Timed]) -> Timed:
    """The median wall time and the median CPU time of ``runs``."""
    out = Timed()
    out.wall = statistics.median(t.wall for t in runs)
    out.cpu = statistics.median(t.cpu for t in runs)
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_peer(binary: Path, files: list[Path], timeout: float = 0
             ) -> tuple[dict[str, tuple[str, float]], Timed]:
    """Porcupine's verdict and check time per file, and the command's times."""
    with Timed() as spent:
        proc = subprocess.run([str(binary), "-timeout", str(timeout), *map(str, files)], capture_output=True,
                              text=True, check=True)
    out = {}
    for line in proc.stdout.splitlines():
        name, verdict, seconds = line.split("\t")
        if name != "total":
            out[name] = ({"Ok": "consistent", "Illegal": "violation"}.get(verdict, "unknown"), float(seconds))
    return out, spent


def run_fisheye(files: list[Path], *extra: str) -> tuple[subprocess.CompletedProcess, Timed]:
    with Timed() as spent:
        proc = subprocess.run([str(FISHEYE), "check", *map(str, files), "--model", "lin", *extra],
                              capture_output=True, text=True)
    return proc, spent


def in_process(files: list[Path]) -> dict[str, tuple[str, float, float]]:
    """fisheye's verdict, check wall and CPU time per file (loading excluded)."""
    from fisheye.checker.engines import check
    from fisheye.checker.formats import load
    from fisheye.spec.history import HistoryError

    out = {}
    for path in files:
        try:
            history, _ = load(str(path), fmt="auto", nil_read="initial")
        except HistoryError:
            out[str(path)] = ("bad input", 0.0, 0.0)
            continue
        w, c = time.perf_counter(), time.process_time()
        result = check(history, "lin")
        out[str(path)] = (result.verdict.value, time.perf_counter() - w, time.process_time() - c)
    return out


def _of(repeat: int) -> str:
    return f" (median of {repeat})" if repeat > 1 else ""


def ratio(mine: float, theirs: float) -> str:
    return f"{mine / theirs:.2f}x" if theirs > 0 else "-"


def row(work: str, theirs: str, mine: str, r: str) -> None:
    say(f"| {work} | {theirs} | {mine} | {r} |")


def both(work: str, theirs: Timed, mine: Timed, t_note: str = "", m_note: str = "") -> None:
    """Two rows: wall time, then CPU time (user + system, every thread)."""
    row(f"{work}, wall", f"{theirs.wall:.3f}{t_note}", f"{mine.wall:.3f}{m_note}",
        ratio(mine.wall, theirs.wall))
    row(f"{work}, CPU", f"{theirs.cpu:.3f}", f"{mine.cpu:.3f}", ratio(mine.cpu, theirs.cpu))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--porcupine", metavar="DIR", help="a clone of github.com/anishathalye/porcupine")
    ap.add_argument("--ops", type=int, default=100_000, help="operations of the large histories")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per large history, each tool")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="runs of the batch command and of each large history per tool, alternated "
                         "(medians)")
    part = ap.add_mutually_exclusive_group()
    part.add_argument("--skip-large", action="store_true", help="only Porcupine's etcd logs")
    part.add_argument("--only-large", action="store_true",
                      help="only the large histories (item 4), not the etcd logs")
    args = ap.parse_args()
    go = shutil.which("go")
    if go is None:
        say("bench_porcupine: skipped: Go is not installed (Debian: apt-get install -y golang-go)")
        return 0
    source, where = porcupine_source(args.porcupine, go)
    if source is None:
        say(f"bench_porcupine: skipped: no Porcupine source: {where}")
        return 0
    version = subprocess.run([go, "version"], capture_output=True, text=True).stdout.strip()
    say(f"Porcupine: {where}; {version}")
    say(f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_peer(go, source, Path(tmp))
        if args.only_large:
            large(binary, Path(tmp), args)
            say(f"load after: {os.getloadavg()[0]:.2f}")
            return 0
        logs = sorted((source / "test_data" / "jepsen").glob("etcd_*.log"))
        say(f"{len(logs)} etcd logs; times: wall (CPU where given), seconds")
        say("| work | Porcupine | fisheye | fisheye / Porcupine |\n| --- | ---: | ---: | ---: |")
        theirs, _ = run_peer(binary, logs)
        mine = in_process(logs)
        refused = [p for p in mine if mine[p][0] == "bad input"]
        disagree = [p for p in mine if mine[p][0] != theirs[p][0] and p not in refused]
        bad = [p for p in mine if theirs[p][0] == "violation"]
        t_all, m_all = sum(v[1] for v in theirs.values()), sum(v[1] for v in mine.values())
        cpu = sum(v[2] for v in mine.values())
        row(f"{len(logs)} etcd logs, in process", f"{t_all:.3f}", f"{m_all:.3f} (CPU {cpu:.3f})",
            ratio(m_all, t_all))
        t_bad, m_bad = sum(theirs[p][1] for p in bad), sum(mine[p][1] for p in bad)
        row(f"the {len(bad)} non-linearizable ones", f"{t_bad:.3f}", f"{m_bad:.3f}", ratio(m_bad, t_bad))
        t_runs, m_runs = [], []
        for _ in range(args.repeat):
            t_runs.append(run_peer(binary, logs)[1])
            m_runs.append(run_fisheye(logs)[1])
        both("one batch command" + _of(args.repeat), median_of(t_runs), median_of(m_runs))
        t_each, m_each = [], []
        for path in logs:
            t_each.append(run_peer(binary, [path])[1])
            m_each.append(run_fisheye([path])[1])
        for what, pick in (("one command per file, total", sum),
                           ("median single-file command", statistics.median)):
            row(f"{what}, wall", f"{pick(t.wall for t in t_each):.3f}", f"{pick(t.wall for t in m_each):.3f}",
                ratio(pick(t.wall for t in m_each), pick(t.wall for t in t_each)))
            row(f"{what}, CPU", f"{pick(t.cpu for t in t_each):.3f}", f"{pick(t.cpu for t in m_each):.3f}",
                ratio(pick(t.cpu for t in m_each), pick(t.cpu for t in t_each)))
        checked = len(logs) - len(refused)
        say(f"verdicts: {checked - len(disagree)}/{checked} agree"
            + (f"; disagree: {', '.join(Path(p).name for p in disagree)}" if disagree else "")
            + "".join(f"; refused by fisheye as bad input: {Path(p).name} ({Path(p).stat().st_size} bytes, "
                      f"Porcupine: {theirs[p][0]})" for p in refused))
        if not args.skip_large:
            large(binary, Path(tmp), args)
    say(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


def large(binary: Path, tmp: Path, args: argparse.Namespace) -> None:
    from bench_lin import jepsen_like

    say(f"\n{args.ops:,} operations, 10 keys, 20 clients; one command each, seconds "
        f"(at most {args.timeout:g} s each)")
    say("| history | Porcupine | fisheye | fisheye / Porcupine |\n| --- | ---: | ---: | ---: |")
    described = {"": "linearizable", "bad": "a read corrupted", "absent": "a read of a value never written"}
    for crash in (0.0, 0.01):
        for bad in ("", "bad", "absent"):
            history = jepsen_like(1, args.ops, 10, 20, crash, bad)
            path = tmp / f"large-{crash}-{bad or 'good'}.json"
            path.write_text(json.dumps(history.to_json()), encoding="utf-8")
            t_runs, m_runs, t_verdicts, m_verdicts = [], [], set(), set()
            for _ in range(args.repeat):
                theirs, t_spent = run_peer(binary, [path], args.timeout)
                t_verdicts.add(theirs[str(path)][0])
                t_runs.append(t_spent)
                proc, m_spent = run_fisheye([path], "--timeout", str(args.timeout))
                m_verdicts.add(verdict_of(proc.stdout))
                m_runs.append(m_spent)
            both(f"{crash:.0%} indeterminate, {described[bad]}{_of(args.repeat)}", median_of(t_runs),
                 median_of(m_runs), f" {'/'.join(sorted(t_verdicts))}", f" {'/'.join(sorted(m_verdicts))}")


if __name__ == "__main__":
    sys.exit(main())
